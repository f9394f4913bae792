/**
 * `--dry-run` of a Flux file: the file read, every key, id, ref, grouping and
 * config value checked, each className's module found and its export looked
 * up (statically: flux/static-exports.ts), and the plan printed — without
 * importing a module the file names or making any object, so a dry run runs
 * none of the file's code (a run does: docs/flux.md, "What a Flux file can
 * do"). What only a made object can tell — the fields it declares, a
 * constructor that throws — is checked when the topology is built, by
 * `hstorm local` and `submit` before anything starts.
 *
 * Storm's Flux builds the topology in a dry run (instantiating its classes);
 * its print-out is this one's: ids, classes, parallelism, streams, config.
 */
import { basename } from 'node:path';
import { validateEntries, type RawConfig } from '../common/config/index.js';
import { maskConfig } from '../common/security/secret-config.js';
import { checkExportsStatically, compileFlux, type ComponentPlan, type FluxOptions, type StreamPlan, type VertexPlan } from '../flux/index.js';
import { defaultTopologyName } from '../worker/index.js';

/** An entry of `components`: what would be made, and how. */
export interface FluxDryRunObject {
  id: string;
  className: string;
  /** The static method that would make it, or null for `new`. */
  factory: string | null;
}

export interface FluxDryRunComponent extends FluxDryRunObject {
  parallelism: number;
  numTasks: number | null;
  gpu: { memoryMB: number } | null;
  /** The component's own config, secrets masked. */
  config: Record<string, unknown>;
}

export interface FluxDryRun {
  name: string;
  source: string;
  /** Always "static": nothing was loaded or made (a module's dry run builds it). */
  checked: 'static';
  components: FluxDryRunObject[];
  spouts: FluxDryRunComponent[];
  bolts: FluxDryRunComponent[];
  streams: { from: string; stream: string; to: string; grouping: string; fields: string[] }[];
  /** `topology.kryo.register`'s classes. */
  serializations: string[];
  /** The topology config as it would be submitted (the file's, -c on top), secrets masked. */
  config: Record<string, unknown>;
  /** What includes with `override: false` left out (the command says them on stderr). */
  warnings: string[];
}

function object(o: ComponentPlan): FluxDryRunObject {
  return { id: o.id, className: o.className.spec, factory: o.factory };
}

function component(v: VertexPlan): FluxDryRunComponent {
  return { ...object(v), parallelism: v.parallelism, numTasks: v.numTasks, gpu: v.gpu, config: maskConfig(v.config) };
}

function stream(s: StreamPlan): FluxDryRun['streams'][number] {
  return { from: s.from, stream: s.streamId, to: s.to, grouping: s.grouping.type, fields: s.grouping.fields };
}

export async function fluxDryRun(input: string, opts: FluxOptions, overrides: RawConfig, name?: string): Promise<FluxDryRun> {
  const c = compileFlux(input, opts);
  await checkExportsStatically(c.plan, c.modules);
  const config = validateEntries({ ...c.plan.config, ...overrides }, { allowUserKeys: true, where: 'the topology config' });
  return {
    name: name ?? c.name ?? defaultTopologyName(basename(c.file).replace(/\.ya?ml$/i, '.js')),
    source: input,
    checked: 'static',
    components: c.plan.components.map(object),
    spouts: c.plan.spouts.map(component),
    bolts: c.plan.bolts.map(component),
    streams: c.plan.streams.map(stream),
    serializations: c.plan.serializations.map((s) => (s.serializer ? `${s.className.spec} (serializer ${s.serializer.spec})` : s.className.spec)),
    config: maskConfig(config),
    warnings: c.warnings,
  };
}

function objectParts(o: FluxDryRunObject): string[] {
  return [`  ${o.id}`, o.className, ...(o.factory !== null ? [`factory ${o.factory}`] : [])];
}

function componentLine(c: FluxDryRunComponent): string {
  const parts = [...objectParts(c), `parallelism ${c.parallelism}`];
  if (c.numTasks !== null) parts.push(`tasks ${c.numTasks}`);
  if (c.gpu) parts.push(`GPU${c.gpu.memoryMB ? ` ${c.gpu.memoryMB} MB` : ''}`);
  if (Object.keys(c.config).length) parts.push(`config ${JSON.stringify(c.config)}`);
  return parts.join('  ');
}

export function formatFluxDryRun(r: FluxDryRun): string {
  const lines = [`topology ${r.name} from ${r.source} (dry run: checked without loading its modules or making its objects; nothing started or submitted)`];
  if (r.components.length) lines.push('components:', ...r.components.map((o) => objectParts(o).join('  ')));
  if (r.spouts.length) lines.push('spouts:', ...r.spouts.map(componentLine));
  if (r.bolts.length) lines.push('bolts:', ...r.bolts.map(componentLine));
  if (r.streams.length) lines.push('streams:', ...r.streams.map((s) => `  ${s.from}${s.stream === 'default' ? '' : `:${s.stream}`} → ${s.to}  ${s.grouping}${s.fields.length ? ` [${s.fields.join(', ')}]` : ''}`));
  if (r.serializations.length) lines.push(`classes that travel between workers: ${r.serializations.join(', ')}`);
  const config = Object.entries(r.config);
  lines.push(`config:${config.length ? '' : ' (none set)'}`, ...config.map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`));
  return lines.join('\n');
}
