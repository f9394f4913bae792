/**
 * Checks what a client submits before nimbus stores anything: the name (it
 * becomes part of znode names and the topology id), the serialized topology
 * (schema, then the SDK's own structural checks — nimbus does not trust the
 * client to have run them) and the topology config, merged over the cluster
 * config as Storm does.
 */
import { buildConfig, CONFIG_KEYS, isKnownKey, validateEntries, type Config, type RawConfig } from '../common/config/index.js';
import { ConfigError, TopologyValidationError } from '../common/errors.js';
import { isSecretOrItsFile } from '../common/security/redaction.js';
import { topologyDefSchema } from '../common/record-schemas.js';
import { TOPOLOGY_NAME } from '../common/storm-base.js';
import { ACKER_COMPONENT, CHECKPOINT_COMPONENT, type TopologyDef } from '../common/topology-def.js';
import { validateTopology } from '../topology-sdk/validate-topology.js';
import { BadRequestError } from './errors.js';

/**
 * Largest topology record (definition + merged config, as JSON) nimbus
 * stores: one ZooKeeper node holds at most jute.maxbuffer (1 MiB by default)
 * with its request framing, so a larger record would fail in ZooKeeper and
 * reach the client as "cluster state unavailable" (503) — a client mistake
 * reported as a server fault.
 */
export const MAX_STORM_RECORD_BYTES = 1_000_000;

/** Refuses (400, naming the largest config values) a topology whose record would not fit in one ZooKeeper node. */
export function checkStormRecordSize(record: { def: TopologyDef; config: RawConfig }): void {
  const bytes = Buffer.byteLength(JSON.stringify(record));
  if (bytes <= MAX_STORM_RECORD_BYTES) return;
  const sizes = Object.entries(record.config)
    .map(([k, v]) => [k, Buffer.byteLength(JSON.stringify(v) ?? '')] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k, n]) => `"${k}" ${n} bytes`);
  throw new BadRequestError(
    `topology definition and config take ${bytes} bytes as JSON; at most ${MAX_STORM_RECORD_BYTES} fit in the cluster state (largest config values: ${sizes.join(', ')}). Keep large data out of config: ship it in the bundle or pass a path`,
    'config',
  );
}

export function checkTopologyName(name: unknown): string {
  if (typeof name !== 'string' || !TOPOLOGY_NAME.test(name)) {
    throw new BadRequestError(
      `invalid topology name ${JSON.stringify(name)}; allowed: 1 to 100 letters, digits, "_" or "-"`,
      'name',
    );
  }
  return name;
}

export function parseTopologyDef(raw: unknown): TopologyDef {
  const parsed = topologyDefSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new TopologyValidationError(`invalid topology definition${where}: ${issue?.message ?? 'does not match the schema'}`);
  }
  const def = parsed.data;
  const seen = new Set<string>();
  for (const c of def.components) {
    // The checkpoint spout is the one "__" id a definition carries (TopologyBuilder adds it; validateStateBounds checks it).
    if (c.id === ACKER_COMPONENT || (c.id.startsWith('__') && c.id !== CHECKPOINT_COMPONENT)) {
      throw new TopologyValidationError(`component id "${c.id}" is reserved (ids starting with "__" are hstorm's)`, c.id);
    }
    if (seen.has(c.id)) throw new TopologyValidationError(`two components have the id "${c.id}"`, c.id);
    seen.add(c.id);
    // Component config reaches the scheduler (setCPULoad, setMemoryLoad) and the workers: the same checks as topology config.
    validateEntries(c.config, { allowUserKeys: true, where: `component "${c.id}" config` });
  }
  validateTopology(def);
  return def;
}

function rejectClusterKeys(layer: RawConfig, where: string): void {
  for (const k of Object.keys(layer)) {
    if (isKnownKey(k) && CONFIG_KEYS[k].scope === 'cluster') {
      throw new ConfigError(
        `config key "${k}" in ${where} is a cluster key; it cannot be set per topology (set it in the daemons' hstorm.yaml)`,
        k,
        layer[k],
      );
    }
  }
}

/**
 * The cluster config a topology's config starts from: all of nimbus's, as Storm
 * merges it, but for the cluster's secrets and the files that hold them. A
 * topology's config is stored in ZooKeeper, handed to its code in every
 * worker and shown by every view; none of those needs nimbus's API secret or
 * the ZooKeeper credentials (a worker gets the latter from its supervisor,
 * supervisor/link-keys.ts).
 */
function clusterLayer(cluster: Config): RawConfig {
  const out: RawConfig = {};
  for (const [k, v] of Object.entries(cluster)) {
    if (isSecretOrItsFile(k)) continue;
    out[k] = v;
  }
  return out;
}

/** Cluster config (its secrets left out), then the module's config, then the submit overrides; validated and frozen. */
export function mergeTopologyConfig(cluster: Config, defConfig: RawConfig, overrides: RawConfig): Config {
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    throw new BadRequestError('topology config must be an object of key: value', 'config');
  }
  rejectClusterKeys(defConfig, 'the topology module');
  rejectClusterKeys(overrides, 'the submitted config');
  return buildConfig([clusterLayer(cluster), defConfig, overrides], { allowUserKeys: true, where: 'topology config' });
}
