/**
 * Which config keys carry a secret, and the one redaction every shown config
 * goes through (docs/security.md, "Secret-bearing keys"). A key carries a
 * secret when it is one of the cluster's own (`nimbus.auth.secret`,
 * `hstorm.zookeeper.auth.payload`) or its last segment names one —
 * `password`, `passwd`, `secret`, `token`, `apikey`, `api.key`, `credentials`
 * (`db.password`, `myapp.api.secret`, a nested `password`); and
 * whatever the key, a string may hold a URL with a password
 * (`redis://user:pass@host`), of which the password goes.
 *
 * Nimbus's read model redacts what every view reads (nimbus/nimbus-read-model.ts),
 * nimbus keeps the cluster's secrets out of a topology's config
 * (nimbus/submit-validation.ts), and a supervisor hands workers only the
 * ZooKeeper credentials they need (supervisor/link-keys.ts).
 */
import { MAX_CONFIG_DEPTH } from '../config/value-depth.js';

export const REDACTED = '***';

/** The cluster's own secrets: nimbus's API secret and the ZooKeeper digest credentials. */
export const CLUSTER_SECRET_KEYS = ['nimbus.auth.secret', 'hstorm.zookeeper.auth.payload'] as const;

/** The last segment of a key that names a secret (`db.password`, `api.token`, `aws.credentials`, `myapp.api.key`). */
const SECRET_SUFFIX = /(^|\.)(password|passwd|secret|token|apikey|api[._-]key|credentials?)$/i;

export function isSecretKey(key: string): boolean {
  return (CLUSTER_SECRET_KEYS as readonly string[]).includes(key) || SECRET_SUFFIX.test(key);
}

/** A secret-bearing key or the `.file` key naming the file that holds one (`nimbus.auth.secret.file`): neither is handed on. */
export function isSecretOrItsFile(key: string): boolean {
  return isSecretKey(key) || (key.endsWith('.file') && isSecretKey(key.slice(0, -'.file'.length)));
}

/**
 * `scheme://user:password@`: the user info ends at the last `@` before the
 * host's path, query or fragment (as the WHATWG URL parser reads it), so a
 * password that holds an `@` goes whole, not only up to its first `@`.
 */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/?#]*:)[^\s/?#]*@/gi;

/** `text` with the password of every URL in it replaced by `***`. */
export function redactUrlPasswords(text: string): string {
  return text.replace(URL_PASSWORD, `$1${REDACTED}@`);
}

/**
 * A copy of `config` fit to show: every secret-bearing key that is set reads
 * `***` (null stays null, so "not set" still shows), URL passwords in strings
 * at any depth are cut, maps and lists are walked. A value nested deeper than
 * a config may nest (a record stored before that bound) shows as `***`.
 */
export function redactConfig<T extends Readonly<Record<string, unknown>>>(config: T): T {
  return redactMap(config, -1) as T;
}

/** `above`: how many lists and maps hold this one within its key's value (-1: the config itself). */
function redactMap(map: Readonly<Record<string, unknown>>, above: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(map)) out[k] = isSecretKey(k) && v !== null && v !== undefined ? REDACTED : redactValue(v, above + 1);
  return out;
}

function redactValue(v: unknown, above: number): unknown {
  if (typeof v === 'string') return redactUrlPasswords(v);
  if (v === null || typeof v !== 'object') return v;
  if (above >= MAX_CONFIG_DEPTH) return REDACTED;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, above + 1));
  return redactMap(v as Record<string, unknown>, above);
}
