/**
 * Config loading: YAML file → `-c key=value` overrides → validate → freeze.
 * Unknown or invalid keys fail fast with a ConfigError naming the key, the
 * value and what is allowed.
 */
import { readFileSync, existsSync } from 'node:fs';
import { LineCounter, parse as parseYaml, parseDocument } from 'yaml';
import { aliasProblemText, documentToJs } from '../yaml-aliases.js';
import { ConfigError } from '../errors.js';
import { CONFIG_KEYS, RESERVED_PREFIXES, type ConfigKey, type ConfigValue } from './schema.js';
import { isUnsupportedStormKey, stormKeyHint, stormValueHint } from './storm-keys.js';
import { closestName } from '../did-you-mean.js';
import { MAX_CONFIG_DEPTH, nestingDepth } from './value-depth.js';
import type { z } from 'zod';

export { MAX_CONFIG_DEPTH } from './value-depth.js';

/** A validated config: every known key present with its type; user keys (topology only) as given. */
export type Config = { readonly [K in ConfigKey]: ConfigValue<K> } & { readonly [key: string]: unknown };

/**
 * A config as a record stores it (StormBase.config): validated when it was built, each known key typed by its
 * schema, but possibly without keys newer than the nimbus that wrote it — `withDefaults` fills them in.
 */
export type ConfigRecord = { [K in ConfigKey]?: ConfigValue<K> } & { [key: string]: unknown };

/** Unvalidated key: value pairs (a YAML file, `-c` options, a module's config). */
export type RawConfig = Record<string, unknown>;

export function isKnownKey(key: string): key is ConfigKey {
  return Object.hasOwn(CONFIG_KEYS, key);
}

export function defaultConfig(): RawConfig {
  const out: RawConfig = {};
  for (const [k, spec] of Object.entries(CONFIG_KEYS)) out[k] = structuredClone(spec.default);
  return out;
}

/** What a key allows, in words: "one of …", "an integer ≥ 1", "a number in [0, 1]", or zod's message. */
function describeAllowed(schema: z.ZodType, issueMessage: string): string {
  let def = (schema as { def?: ZodDefLike }).def;
  let inner = schema as unknown as NumberLike;
  let nullable = false;
  if (def?.type === 'nullable' && def.innerType) {
    nullable = true;
    inner = def.innerType as unknown as NumberLike;
    def = def.innerType.def;
  }
  const orNull = nullable ? ', or null' : '';
  if (def?.type === 'enum' && def.entries) return `one of ${Object.values(def.entries).map((v) => JSON.stringify(v)).join(', ')}${orNull}`;
  if (def?.type === 'number') {
    const what = inner.isInt ? 'an integer' : 'a number';
    // .int() implies the safe-integer range: not worth saying.
    const lo = inner.minValue != null && inner.minValue > Number.MIN_SAFE_INTEGER ? inner.minValue : null;
    const hi = inner.maxValue != null && inner.maxValue < Number.MAX_SAFE_INTEGER ? inner.maxValue : null;
    // .positive() is "> 0", not "≥ 0": the bound's inclusiveness lives in the check that set it.
    const strict = (kind: string, v: number | null) => (def?.checks ?? []).some((c) => c._zod?.def?.check === kind && c._zod.def.value === v && c._zod.def.inclusive === false);
    const loOpen = strict('greater_than', lo);
    const hiOpen = strict('less_than', hi);
    if (lo !== null && hi !== null) return `${what} in ${loOpen ? '(' : '['}${lo}, ${hi}${hiOpen ? ')' : ']'}${orNull}`;
    if (lo !== null) return `${what} ${loOpen ? '>' : '≥'} ${lo}${orNull}`;
    if (hi !== null) return `${what} ${hiOpen ? '<' : '≤'} ${hi}${orNull}`;
    return `${what}${orNull}`;
  }
  return issueMessage;
}

interface ZodDefLike {
  type?: string;
  checks?: { _zod?: { def?: { check?: string; value?: unknown; inclusive?: boolean } } }[];
  entries?: Record<string, string>;
  innerType?: z.ZodType & { def?: ZodDefLike };
}

interface NumberLike {
  isInt?: boolean;
  minValue?: number | null;
  maxValue?: number | null;
}

/** Where a `-c key=value` came from, in messages (not a file: a user looking in hstorm.yaml would not find it). */
export const COMMAND_LINE = 'the -c options';

/**
 * A stored config with the schema's defaults underneath, for keys a record written by an older nimbus lacks. The
 * record was validated when it was built (buildConfig at submit), so this restores the type without checking again.
 */
export function withDefaults(stored: ConfigRecord): Config {
  return Object.freeze({ ...defaultConfig(), ...stored }) as Config;
}

/** Validates one key; `where` (a file, COMMAND_LINE, "topology config") goes into the message. */
export function checkKey<K extends ConfigKey>(key: K, value: unknown, where?: string): ConfigValue<K>;
export function checkKey(key: string, value: unknown, where?: string): unknown;
export function checkKey(key: string, value: unknown, where?: string): unknown {
  const src = where ? ` in ${where}` : '';
  const storm = stormKeyHint(key);
  if (storm && isUnsupportedStormKey(key)) throw new ConfigError(`config key "${key}"${src} is not supported: ${storm}`, key, value);
  if (storm) throw new ConfigError(`unknown config key "${key}"${src}: ${storm}`, key, value);
  if (!isKnownKey(key)) {
    const hint = closestName(key, Object.keys(CONFIG_KEYS));
    throw new ConfigError(`unknown config key "${key}"${src}${hint ? `; did you mean "${hint}"?` : ''}`, key, value);
  }
  const spec = CONFIG_KEYS[key];
  const parsed = spec.schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue && issue.path.length ? ` (at ${issue.path.join('.')})` : '';
    const allowed = describeAllowed(spec.schema, issue?.message ?? 'see docs');
    const storm = stormValueHint(key, value);
    throw new ConfigError(
      `invalid value for config key "${key}"${src}: ${JSON.stringify(value)}${at}; allowed: ${allowed}${storm ? ` — ${storm}` : ''}`,
      key,
      value,
    );
  }
  return parsed.data;
}

export interface ValidateOptions {
  /** Topology config may carry the author's own keys (outside hstorm's prefixes). */
  allowUserKeys: boolean;
  /** Daemon config may not set what only a topology decides? (all keys allowed in both today) */
  where?: string;
  /**
   * Check the keys that bound each other (topology.gpu.workers ≤ topology.workers, …); default true. Off only for a
   * config that is not the whole yet: judged against defaults, an override would be refused for a bound the layer
   * still to come (a module's own config) sets.
   */
  crossKeys?: boolean;
}

/** Validates the given keys only (no defaults merged); returns a frozen copy. */
export function validateEntries(raw: RawConfig, opts: ValidateOptions): RawConfig {
  const out: RawConfig = {};
  for (const [k, v] of Object.entries(raw)) {
    checkDepth(k, v, opts.where);
    const reserved = RESERVED_PREFIXES.some((p) => k.startsWith(p));
    // A Storm key (storm.zookeeper.servers, nimbus.seeds…) is refused with the hstorm key to use, even where user keys are allowed.
    if (!reserved && !isKnownKey(k) && stormKeyHint(k) === null) {
      if (!opts.allowUserKeys) {
        throw new ConfigError(`unknown config key "${k}"${opts.where ? ` in ${opts.where}` : ''}`, k, v);
      }
      out[k] = v;
      continue;
    }
    out[k] = checkKey(k, v, opts.where);
  }
  return out;
}

/** Refuses a value nested deeper than MAX_CONFIG_DEPTH before anything recursive (zod, JSON.stringify) reads it. */
function checkDepth(key: string, value: unknown, where: string | undefined): void {
  const depth = nestingDepth(value);
  if (depth <= MAX_CONFIG_DEPTH) return;
  throw new ConfigError(
    `invalid value for config key "${key}"${where ? ` in ${where}` : ''}: lists and maps nested more than ${MAX_CONFIG_DEPTH} levels deep; allowed: at most ${MAX_CONFIG_DEPTH} levels`,
    key,
  );
}

/** Defaults, then each layer in order (later wins), validated and frozen. */
export function buildConfig(layers: RawConfig[], opts: ValidateOptions): Config {
  const merged: RawConfig = defaultConfig();
  for (const layer of layers) Object.assign(merged, validateEntries(layer, opts));
  if (opts.crossKeys !== false) checkCrossKeys(merged);
  return Object.freeze(merged) as Config;
}

export function checkCrossKeys(c: RawConfig): void {
  checkSpoutPendingBound(c);
  const workers = (c['topology.workers'] as number | undefined) ?? 1;
  const gpuWorkers = (c['topology.gpu.workers'] as number | undefined) ?? 0;
  if (gpuWorkers > workers) {
    throw new ConfigError(
      `invalid value for config key "topology.gpu.workers": ${gpuWorkers}; allowed: at most topology.workers (${workers})`,
      'topology.gpu.workers',
      gpuWorkers,
    );
  }
  const slots = c['supervisor.slots.ports'] as readonly number[] | undefined;
  const logviewer = c['supervisor.logviewer.port'] as number | null | undefined;
  if (slots && typeof logviewer === 'number' && logviewer !== 0 && slots.includes(logviewer)) {
    throw new ConfigError(
      `invalid value for config key "supervisor.logviewer.port": ${logviewer}; allowed: a port that is not one of supervisor.slots.ports (${slots.join(', ')}), 0 (any free port) or null (no log server)`,
      'supervisor.logviewer.port',
      logviewer,
    );
  }
  const lower = c['topology.localityaware.lower.bound'] as number | undefined;
  const higher = c['topology.localityaware.higher.bound'] as number | undefined;
  if (lower !== undefined && higher !== undefined && lower >= higher) {
    throw new ConfigError(
      `invalid value for config key "topology.localityaware.lower.bound": ${lower}; allowed: below topology.localityaware.higher.bound (${higher})`,
      'topology.localityaware.lower.bound',
      lower,
    );
  }
}

/**
 * An unbounded `topology.max.spout.pending` (null) is refused while acking is
 * on: a spout then emits faster than its tuples complete, they time out and
 * are replayed, and throughput collapses instead of levelling off. Without
 * acking nothing is pending, so null is harmless there and still allowed.
 */
function checkSpoutPendingBound(c: RawConfig): void {
  if (!Object.hasOwn(c, 'topology.max.spout.pending') || c['topology.max.spout.pending'] !== null) return;
  if (c['topology.acker.executors'] === 0) return;
  throw new ConfigError(
    'invalid value for config key "topology.max.spout.pending": null (unbounded); allowed: an integer ≥ 1 while acking is on ' +
      '(topology.acker.executors is not 0). Unbounded, a spout emits faster than its tuples are acked: they time out, are replayed, ' +
      'and throughput collapses (a probe measured 957 acked/s against 131 k/s with 500). Raise the bound instead (default 1000), or turn acking off',
    'topology.max.spout.pending',
    null,
  );
}

/** Parses `key=value`; the value is read as YAML so numbers, booleans and lists keep their type. */
export function parseOverride(arg: string): [string, unknown] {
  const eq = arg.indexOf('=');
  if (eq <= 0) throw new ConfigError(`invalid -c option "${arg}"; allowed: key=value`, arg);
  const k = arg.slice(0, eq).trim();
  const text = arg.slice(eq + 1);
  let v: unknown;
  try {
    v = parseYaml(text);
  } catch {
    v = text;
  }
  return [k, v === null && text.trim() !== 'null' && text.trim() !== '~' ? text : v];
}

export function parseOverrides(args: readonly string[]): RawConfig {
  return Object.fromEntries(args.map(parseOverride));
}

/** Reads a YAML config file; a missing default file is an empty config, a missing named file an error. */
export function readConfigFile(path: string, required: boolean): RawConfig {
  if (!existsSync(path)) {
    if (required) throw new ConfigError(`config file not found: ${path}`, '--config', path);
    return {};
  }
  const lines = new LineCounter();
  const parsed = parseDocument(readFileSync(path, 'utf8'), { lineCounter: lines, prettyErrors: false });
  const where = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return `${path}:${line}:${col}`;
  };
  const syntax = parsed.errors[0];
  if (syntax) throw new ConfigError(`${where(syntax.pos[0])}: config file ${path} is not valid YAML: ${syntax.message.split('\n')[0]}`, '--config', path);
  const js = documentToJs(parsed);
  if (!js.ok) throw new ConfigError(`${where(js.problem.offset)}: config file ${path} is refused: ${aliasProblemText(js.problem)}`, '--config', path);
  const doc = js.value;
  if (doc == null) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(`config file ${path} must be a map of key: value`, '--config', path);
  }
  return doc as RawConfig;
}

/** Durations compiled once, so the rest of the code reads `…Ms` numbers. */
export function secsToMs(secs: number): number {
  return Math.round(secs * 1000);
}

/** The subset of a config that a topology may override. */
export function topologyKeys(c: RawConfig): RawConfig {
  const out: RawConfig = {};
  for (const [k, v] of Object.entries(c)) {
    if (!isKnownKey(k) || CONFIG_KEYS[k].scope === 'topology') out[k] = v;
  }
  return out;
}
