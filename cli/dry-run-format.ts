/**
 * `--dry-run` (Storm Flux's flag) of a topology module: the topology as it would be submitted —
 * spouts and bolts with their parallelism, streams, GPU request and
 * own config; the subscriptions with their groupings in Flux's names; the
 * registered classes; the topology config — built and validated, nothing started or sent. Secrets in the config
 * (`*.password`, `*.secret`, a URL's password: common/security/secret-config.ts) are printed masked. A Flux file's dry
 * run is flux-dry-run.ts: it loads nothing.
 */
import type { RawConfig } from '../common/config/index.js';
import type { ComponentDef, GroupingDef, TopologyDef } from '../common/topology-def.js';
import { maskConfig } from '../common/security/secret-config.js';

/** hstorm's grouping → the name a Flux file gives it. */
const FLUX_GROUPING: Record<GroupingDef['type'], string> = {
  shuffle: 'SHUFFLE',
  fields: 'FIELDS',
  all: 'ALL',
  global: 'GLOBAL',
  direct: 'DIRECT',
  localOrShuffle: 'LOCAL_OR_SHUFFLE',
  twoChoice: 'TWO_CHOICE',
  loadAwareShuffle: 'LOAD_AWARE_SHUFFLE',
  none: 'NONE',
  partialKey: 'PARTIAL_KEY',
  custom: 'CUSTOM',
};

export interface DryRun {
  name: string;
  /** The module or Flux file given. */
  source: string;
  def: TopologyDef;
  /** The topology config as submitted: the module's, with -c on top. */
  config: RawConfig;
}

export function dryRun(name: string, source: string, def: TopologyDef, config: RawConfig): DryRun {
  const masked = { ...def, components: def.components.map((c) => ({ ...c, config: maskConfig(c.config) })), config: maskConfig(def.config) };
  return { name, source, def: masked, config: maskConfig(config) };
}

function groupingText(g: GroupingDef): string {
  return g.type === 'fields' ? `FIELDS [${g.fields.join(', ')}]` : FLUX_GROUPING[g.type];
}

function componentLine(c: ComponentDef): string {
  const parts = [`  ${c.id}`, `parallelism ${c.parallelism}`];
  if (c.gpu) parts.push(`GPU${c.gpu.memoryMB ? ` ${c.gpu.memoryMB} MB` : ''}`);
  parts.push(`emits ${c.streams.map((s) => `${s.id} [${s.fields.join(', ')}]${s.direct ? ' direct' : ''}`).join(', ') || 'nothing'}`);
  if (Object.keys(c.config).length) parts.push(`config ${JSON.stringify(c.config)}`);
  return parts.join('  ');
}

export function formatDryRun(r: DryRun): string {
  const lines = [`topology ${r.name} from ${r.source} (dry run: built and validated, nothing started or submitted)`];
  for (const kind of ['spout', 'bolt'] as const) {
    const list = r.def.components.filter((c) => c.kind === kind);
    if (!list.length) continue;
    lines.push(`${kind}s:`, ...list.map((c) => componentLine(c)));
  }
  const streams = r.def.components.flatMap((c) => c.inputs.map((i) => `  ${i.component}${i.stream === 'default' ? '' : `:${i.stream}`} → ${c.id}  ${groupingText(i.grouping)}`));
  if (streams.length) lines.push('streams:', ...streams);
  // The classes whose instances travel between workers (registerSerialization; a Flux file's topology.kryo.register).
  if (r.def.serializations?.length) lines.push(`classes that travel between workers: ${r.def.serializations.join(', ')}`);
  const config = Object.entries(r.config);
  lines.push(`config:${config.length ? '' : ' (none set)'}`, ...config.map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`));
  return lines.join('\n');
}
