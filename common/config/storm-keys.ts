/**
 * Storm's config key names that a Storm user types out of habit, and the
 * hstorm key that does the job. hstorm refuses them rather than aliasing
 * them, because the values differ too (Storm splits hosts and port over two
 * keys; hstorm takes `host:port` entries): the error names the hstorm key
 * and what to write.
 */
export const STORM_KEYS: Readonly<Record<string, { key: string; note?: string }>> = {
  'storm.zookeeper.servers': { key: 'hstorm.zookeeper.servers', note: 'a list of "host:port" entries (Storm\'s storm.zookeeper.port folded in)' },
  'storm.zookeeper.port': { key: 'hstorm.zookeeper.servers', note: 'the port goes in each "host:port" entry' },
  'storm.zookeeper.root': { key: 'hstorm.zookeeper.root' },
  'storm.zookeeper.session.timeout': { key: 'hstorm.zookeeper.session.timeout.ms' },
  'storm.zookeeper.connection.timeout': { key: 'hstorm.zookeeper.connect.timeout.ms' },
  'storm.local.dir': { key: 'hstorm.local.dir' },
  'storm.scheduler': { key: 'nimbus.scheduler', note: 'one of "even", "hetero", "hdrf"' },
  'nimbus.seeds': { key: 'nimbus.host', note: 'one host: hstorm runs a single nimbus' },
  'nimbus.thrift.port': { key: 'nimbus.http.port', note: 'nimbus speaks HTTP, not Thrift' },
  'logviewer.port': { key: 'supervisor.logviewer.port', note: "each supervisor serves its workers' logs itself; `hstorm logs` reads them" },
  'ui.port': { key: 'nimbus.http.port', note: "the UI is served on nimbus's HTTP port" },
  'supervisor.worker.timeout.secs': { key: 'nimbus.task.timeout.secs' },
  'executor.metrics.frequency.secs': { key: 'topology.stats.report.secs', note: 'how often a worker writes its metrics record; a topology may set it' },
  'supervisor.childopts': { key: 'worker.childopts', note: 'node flags for workers' },
  'topology.worker.childopts': { key: 'worker.childopts', note: 'node flags for workers' },
  'topology.max.task.parallelism': { key: 'topology.workers', note: 'hstorm has no cap on task parallelism; size the topology with topology.workers' },
};

/**
 * Storm's topology keys for what hstorm does not implement (task hooks, the event logger, Kryo): refused as "not
 * supported", with what to do instead, rather than as an unknown key the user must have mistyped.
 */
export const UNSUPPORTED_STORM_KEYS: Readonly<Record<string, string>> = {
  'topology.auto.task.hooks': 'task hooks (ITaskHook) are not part of hstorm; count or log in the component itself (context.registerCounter, context.log)',
  'topology.eventlogger.executors': "Storm's event logger is not part of hstorm; log sampled tuples from the component (context.log) and read them with `hstorm logs`",
  'topology.kryo.register': 'values travel with msgpackr, not Kryo: register a class with TopologyBuilder.registerSerialization(Class) (a Flux file may list classNames under its config\'s topology.kryo.register)',
  'topology.kryo.decorators': 'values travel with msgpackr, not Kryo: register a class with TopologyBuilder.registerSerialization(Class, serializer)',
  'topology.kryo.factory': 'values travel with msgpackr, not Kryo: register a class with TopologyBuilder.registerSerialization(Class, serializer)',
  'topology.fall.back.on.java.serialization': 'there is no fallback serialization: a value that cannot travel is refused at emit, naming it; register its class with TopologyBuilder.registerSerialization',
  'topology.skip.missing.kryo.registrations': 'a value of an unregistered class is refused at emit, naming it; register its class with TopologyBuilder.registerSerialization',
  'topology.testing.always.try.serialize': 'not needed: every emit checks its values, whether the target task is in the same worker or another',
  'topology.tasks': "set a component's tasks with its declarer's .setNumTasks(n)",
  'topology.enable.message.timeouts': 'message timeouts are always on (topology.message.timeout.secs)',
  'topology.debug': 'there is no per-tuple debug log; raise the log level with `hstorm set-log-level <topology> debug`',
  'topology.state.kryo.register': "state values are encoded as tuples are, with msgpackr, not Kryo: register a class with TopologyBuilder.registerSerialization(Class), the same registration as for tuples, and its instances come back as instances of it after a restart; numbers, strings, plain objects, arrays, Maps, Sets, Dates, bigints and typed arrays need none (docs/state.md)",
  'topology.state.synchronization.timeout.secs': "there is no state synchronization between components: a stateful bolt's state is restored by the checkpoint spout's recovery (topology.state.checkpoint.interval.ms, docs/state.md)",
};

/**
 * Storm's key families for whole features hstorm does not have (Trident, DRPC, …): every key under
 * the prefix is refused as "not supported", including Storm's daemon keys (`drpc.servers`), which would otherwise
 * pass as the author's own keys and be ignored. No hstorm key lies under these prefixes (config.test.ts checks).
 */
export const UNSUPPORTED_STORM_PREFIXES: Readonly<Record<string, string>> = {
  'topology.trident.': 'Trident is not part of hstorm; write the topology with spouts and bolts (windowed bolts for batches over time)',
  'topology.transactional.': 'transactional topologies are not part of hstorm',
  'transactional.': 'transactional topologies are not part of hstorm',
  'drpc.': 'DRPC is not part of hstorm',
  'pacemaker.': 'Pacemaker is not part of hstorm',
  'topology.eventlogger.': "Storm's event logger is not part of hstorm; log sampled tuples from the component (context.log) and read them with `hstorm logs`",
  'topology.ras.': "the resource-aware scheduler's constraints are not part of hstorm; declare what a component needs with setCPULoad, setMemoryLoad and .gpu(), and choose the strategy with nimbus.scheduler (docs/scheduling.md)",
  'topology.scheduler.': 'a per-topology scheduling strategy and favoured nodes are not part of hstorm; nimbus.scheduler chooses the strategy for the cluster (docs/scheduling.md)',
  'topology.classpath': "there is no classpath: the module's imports travel in its bundle (hstorm submit)",
  'topology.blobstore.': "there is no blob store: put the files a topology reads in resources/ beside its module, which travel in the bundle",
};

/** Why a Storm key is not supported, or null when it is not such a key. */
function unsupportedReason(key: string): string | null {
  const exact = UNSUPPORTED_STORM_KEYS[key];
  if (exact) return exact;
  const prefix = Object.keys(UNSUPPORTED_STORM_PREFIXES).find((p) => key.startsWith(p));
  return prefix ? UNSUPPORTED_STORM_PREFIXES[prefix]! : null;
}

/** A Storm key hstorm knows of and does not implement (refused as "not supported", not as unknown). */
export function isUnsupportedStormKey(key: string): boolean {
  return unsupportedReason(key) !== null;
}

/** "did you mean" text for a Storm key, or null when the key is not one of Storm's. Any `storm.` key is Storm's. */
export function stormKeyHint(key: string): string | null {
  const unsupported = unsupportedReason(key);
  if (unsupported) return `"${key}" is a Storm key hstorm does not support: ${unsupported}`;
  const known = STORM_KEYS[key];
  if (known) return `"${key}" is a Storm key; did you mean "${known.key}"?${known.note ? ` (${known.key}: ${known.note})` : ''}`;
  if (key.startsWith('storm.')) return `"${key}" is a Storm key with no hstorm equivalent; hstorm's keys are listed in common/config/schema.ts`;
  return null;
}

/**
 * Storm's stateful bolts use hstorm's own keys (topology.state.provider, .provider.config, .checkpoint.interval.ms),
 * but Storm's values are Java: a provider class, a Jedis pool config. What to write instead, for a value of Storm's
 * form that the key refused; null for any other value.
 */
export function stormValueHint(key: string, value: unknown): string | null {
  if (key === 'topology.state.provider' && typeof value === 'string' && value.includes('.')) {
    const ours = /redis/i.test(value) ? 'redis' : /inmemory/i.test(value) ? 'memory' : null;
    return `"${value}" is a Storm state provider class; hstorm names its providers ${ours ? `(write "${ours}")` : '"memory" or "redis"'}`;
  }
  if (key === 'topology.state.provider.config' && JSON.stringify(value ?? null).includes('jedis')) {
    return 'Storm\'s Redis provider config (jedisPoolConfig: host, port, database, password) is a URL here: { url: "redis://[:password@]host:port/database" } (docs/state.md)';
  }
  return null;
}
