/**
 * Every config key hstorm knows, with its default and what is allowed — the
 * one place defaults live (like Storm's defaults.yaml). Keys keep Storm's names
 * where Storm has one.
 *
 * `scope` says where a key may be set: `cluster` keys only in daemon config,
 * `topology` keys also per topology (topology config overrides cluster config).
 */
import { z } from 'zod';

const port = z.number().int().min(1).max(65535);
const posInt = z.number().int().min(1);
const nonNegInt = z.number().int().min(0);
const unit = z.number().min(0).max(1);
const posNum = z.number().positive();

export const declaredGpuSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  smCount: posInt,
  coresPerSm: posInt.optional(),
  clockMHz: posNum,
  memoryMB: posNum,
  computeCapability: z.string().regex(/^\d+\.\d+$/, 'like "6.1"'),
  slots: posInt.optional(),
});
export type DeclaredGpu = z.infer<typeof declaredGpuSchema>;

/**
 * `topology.state.provider.config`: where the state store is (Storm's provider config, as a map: a JSON string from
 * `-c` parses as one). Every field has a default, so `{}` is a Redis on this machine.
 */
export const stateProviderConfigSchema = z.strictObject({
  url: z.string().regex(/^rediss?:\/\/\S+$/, 'a redis:// or rediss:// URL (redis://[user:password@]host:port[/db])').optional(),
  /** Name of an environment variable holding the URL, read where the worker runs; wins over `url`, so a password stays out of the topology's config. */
  urlEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').optional(),
  keyPrefix: z.string().regex(/^[^\s]*$/, 'no spaces').optional(),
  connectTimeoutMs: posInt.optional(),
  commandTimeoutMs: posInt.optional(),
});
export type StateProviderConfig = z.infer<typeof stateProviderConfigSchema>;

/** One key: its schema, its default (typed by the schema, so a wrong default fails to compile), where it may be set, and what it does. */
export interface KeySpec<S extends z.ZodType = z.ZodType, Scope extends KeyScope = KeyScope> {
  readonly schema: S;
  readonly default: z.output<S>;
  readonly scope: Scope;
  readonly doc: string;
}
export type KeyScope = 'cluster' | 'topology';

function key<S extends z.ZodType, Scope extends KeyScope>(schema: S, def: z.output<S>, scope: Scope, doc: string): KeySpec<S, Scope> {
  return { schema, default: def, scope, doc };
}

export const CONFIG_KEYS = {
  // ── ZooKeeper and daemons ────────────────────────────────────────────────
  'hstorm.zookeeper.servers': key(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'host:port')).min(1), ['127.0.0.1:2181'], 'cluster', 'ZooKeeper ensemble, as host:port entries'),
  'hstorm.zookeeper.root': key(z.string().regex(/^\/[^\s]*[^/\s]$|^\/[^/\s]+$/, 'an absolute path like /hstorm'), '/hstorm', 'cluster', 'root znode; several clusters can share one ensemble'),
  'hstorm.zookeeper.session.timeout.ms': key(z.number().int().min(1000).max(600000), 6000, 'cluster', 'ZooKeeper session timeout'),
  'hstorm.zookeeper.connect.timeout.ms': key(z.number().int().min(100), 15000, 'cluster', 'how long a daemon waits for ZooKeeper before giving up'),
  'hstorm.local.dir': key(z.string().min(1), './hstorm-data', 'cluster', 'data dir of a daemon (blobs, worker logs, caches)'),
  'nimbus.host': key(z.string().min(1), '127.0.0.1', 'cluster', 'host the CLI and supervisors reach nimbus at'),
  'nimbus.http.port': key(port, 6627, 'cluster', 'nimbus HTTP API port'),
  'nimbus.bundle.max.inflated.mb': key(posNum, 256, 'cluster', 'largest size a submitted topology bundle may inflate to, in MiB; nimbus counts it as a stream and refuses more (HTTP 413), so a gzip bomb costs it neither memory nor event-loop time'),
  'nimbus.task.timeout.secs': key(posNum, 10, 'cluster', 'a worker without heartbeat this long is dead'),
  'nimbus.task.launch.secs': key(posNum, 30, 'cluster', 'a worker that never heartbeat this long after its assignment is dead (its supervisor restarts it first, after supervisor.worker.start.timeout.secs)'),
  'nimbus.monitor.freq.secs': key(posNum, 1, 'cluster', 'how often nimbus checks worker liveness and runs a reconcile round (a tick that finds the previous round still running is skipped and counted, never queued)'),
  'nimbus.shutdown.timeout.secs': key(posNum, 10, 'cluster', 'longest nimbus takes to stop after SIGTERM/SIGINT: what still runs then (a round, a sample) is abandoned and the process exits'),
  'nimbus.scheduler': key(z.enum(['even', 'hetero', 'hdrf']), 'hetero', 'cluster', 'scheduling strategy: even (Storm), hetero (H-Storm α/β), hdrf (hetero placement with HDRF fair sharing between topologies)'),
  'nimbus.scheduler.fairness': key(z.enum(['none', 'hdrf']), 'none', 'cluster', 'order between topologies: none (submission order, partial placement as Storm) or hdrf (smallest dominant share first, all-or-nothing admission, reservations after OT); nimbus.scheduler=hdrf implies hdrf'),
  'nimbus.scheduler.reservation.timeout.secs': key(posNum, 300, 'cluster', 'OT of HDRF: a topology that waited longer gets a reservation (resources freed from then on are held for it)'),
  'nimbus.scheduler.gpu.fallback.cpu': key(z.boolean(), false, 'cluster', 'GPU executors that find no GPU slot run in CPU workers on a CPU backend (reported as a fallback) instead of waiting unassigned; hstorm local turns it on'),
  'supervisor.id': key(z.string().regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, . _ -').nullable(), null, 'cluster', 'supervisor id (default: host name + first port)'),
  'supervisor.host': key(z.string().min(1).nullable(), null, 'cluster', 'host name peers reach this node at (default: 127.0.0.1)'),
  'supervisor.slots.ports': key(z.array(port).min(1), [6700, 6701, 6702, 6703], 'cluster', 'worker ports (one slot each)'),
  'supervisor.heartbeat.frequency.secs': key(posNum, 1, 'cluster', "how often the supervisor looks at its ZooKeeper node (membership and capacity), rewriting it only when what it says changed (node collector figures, worker deaths); also the grace nimbus gives a vanished supervisor node"),
  'supervisor.monitor.frequency.secs': key(posNum, 1, 'cluster', 'how often the supervisor checks its workers'),
  'supervisor.worker.start.timeout.secs': key(posNum, 30, 'cluster', 'time a new worker has for its first heartbeat'),
  'supervisor.gpu.discovery': key(z.enum(['auto', 'nvidia-smi', 'webgpu', 'declared', 'none']), 'auto', 'cluster', 'where GPUs come from'),
  'supervisor.gpus': key(z.array(declaredGpuSchema), [], 'cluster', 'GPUs declared in config'),
  'supervisor.gpu.slots': key(posInt, 4, 'cluster', 'default slots (MPS clients) per discovered GPU'),
  'supervisor.gpu.mps.max.clients': key(posInt.nullable(), null, 'cluster', 'MPS client limit (default: 16 before Volta, 48 from Volta on)'),
  'supervisor.cpu.cores': key(posNum.nullable(), null, 'cluster', 'CPU cores this node offers to HDRF (default: the machine\'s cores)'),
  'supervisor.memory.mb': key(posNum.nullable(), null, 'cluster', 'memory in MB this node offers to HDRF (default: the machine\'s total memory)'),
  'supervisor.gpu.memory.mb': key(posNum.nullable(), null, 'cluster', 'GPU memory in MB assumed for a discovered GPU that reports none (WebGPU adapters do not); null: unknown, the GPU is shared by slots only'),
  'supervisor.gpu.sm.counts': key(z.record(z.string(), posInt), {}, 'cluster', 'SM count per GPU name, overriding the built-in table'),
  'supervisor.collector.period.secs': key(z.number().min(0), 5, 'cluster', 'node collector period: CPU and memory use, per-GPU utilisation and memory (nvidia-smi), worker RSS and CPU, published with the supervisor heartbeat; 0 turns collection off'),
  'supervisor.logviewer.port': key(z.number().int().min(0).max(65535).nullable(), 0, 'cluster', "port of the supervisor's worker log server, which `hstorm logs` reads (Storm's logviewer.port); it listens on supervisor.slots.bind.host and needs nimbus.auth.secret when one is set; 0: any free port (the supervisor advertises the one it got in ZooKeeper); null: no log server"),
  'supervisor.slots.bind.host': key(z.string().min(1).nullable(), null, 'cluster', 'address worker slots listen on (default: supervisor.host, or 127.0.0.1 when that is unset); 0.0.0.0 for every interface'),
  // ── security (docs/security.md); each off by default ─────────────────────
  'supervisor.worker.user': key(z.string().regex(/^[A-Za-z0-9._-]+$/, 'a user name or uid').nullable(), null, 'cluster', 'run workers as this user (name or uid, with its primary group) instead of the supervisor\'s; the supervisor must run as root; null: the supervisor\'s user'),
  'nimbus.auth.secret': key(z.string().min(16, 'at least 16 characters').nullable(), null, 'cluster', 'shared secret of the nimbus HTTP API: every POST and bundle download needs `Authorization: Bearer <secret>` (the CLI and supervisors send it); null: open'),
  'nimbus.auth.secret.file': key(z.string().min(1).nullable(), null, 'cluster', 'file holding nimbus.auth.secret (read at start, surrounding whitespace trimmed); wins over nimbus.auth.secret'),
  'nimbus.auth.reads': key(z.boolean(), false, 'cluster', 'with a nimbus secret, GET routes (API, UI data, /metrics) need it too; the web page itself stays public and asks for the secret'),
  'nimbus.http.allowed.hosts': key(
    z.array(z.string().regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:\d{1,5})?$/, 'a host name or address, optionally with :port (no scheme, no wildcard)')),
    [],
    'cluster',
    "names besides loopback, this machine's names and addresses, nimbus.host and the bound address under which nimbus takes state-changing requests (Host header) and the origins it takes them from (Origin header): a DNS alias clients use, a TLS proxy's host; `name` for any port, `name:port` for one",
  ),
  'hstorm.zookeeper.auth.payload': key(z.string().regex(/^[^:\s]+:\S+$/, 'user:password').nullable(), null, 'cluster', 'ZooKeeper digest credentials (user:password): every hstorm process adds them, and every znode hstorm creates gets an ACL that lets only them read or write; null: world-open znodes'),
  'hstorm.zookeeper.auth.payload.file': key(z.string().min(1).nullable(), null, 'cluster', 'file holding hstorm.zookeeper.auth.payload (read at start, surrounding whitespace trimmed); wins over hstorm.zookeeper.auth.payload'),
  'hstorm.messaging.curve': key(z.boolean(), false, 'cluster', 'ZeroMQ CURVE between workers: encrypted links, and a worker accepts only peers holding its topology\'s key pair (made by nimbus per topology, fetched by supervisors over the authenticated API); needs nimbus.auth.secret in cluster mode'),
  'worker.heartbeat.frequency.secs': key(posNum, 1, 'cluster', "liveness period: a worker writes its local heartbeat file this often, and its supervisor sends nimbus one message with all its workers' liveness this often (Storm 2's worker → supervisor → nimbus path; no ZooKeeper write)"),
  'worker.childopts': key(z.array(z.string()), [], 'cluster', 'extra node flags for worker processes'),
  // ── topology ─────────────────────────────────────────────────────────────
  'topology.workers': key(posInt, 1, 'topology', 'worker processes for the topology'),
  'topology.gpu.workers': key(nonNegInt, 0, 'topology', 'how many of the workers are GPU workers'),
  'topology.acker.executors': key(nonNegInt.nullable(), null, 'topology', 'acker tasks (default: one per worker; 0 disables acking)'),
  'topology.load.timeout.secs': key(posNum, 60, 'topology', 'longest a topology module may take to load and build its topology (its top-level await, the promise its default export returns) in submit, local and every worker; past it the module is refused'),
  'topology.message.timeout.secs': key(posNum, 30, 'topology', 'a spout tuple not fully acked in this time fails'),
  'topology.stale.tuple.margin.secs': key(z.number().min(0).nullable(), 2, 'topology', "a worker drops (and counts) a tracked tuple whose tree started longer ago than the longest topology.message.timeout.secs plus this margin: its spout has timed it out and replays it, so executing it would only run the work twice (a cut link's queue releases such tuples when it heals); the time is the spout host's clock, read against the receiver's, so the timeout plus this margin is the clock skew between hosts the rule tolerates; null: execute every tuple, as Storm does"),
  'topology.max.spout.pending': key(posInt.nullable(), 1000, 'topology', 'spout tuples in flight per spout task; null (unbounded) only with acking off (topology.acker.executors=0), where nothing is pending'),
  'topology.transfer.batch.size': key(posInt, 128, 'topology', 'tuples per batch to another worker (an ack message counts a quarter of a tuple)'),
  'topology.batch.flush.interval.millis': key(z.number().min(0), 1, 'topology', 'a partial batch waits at most this long'),
  'topology.executor.receive.buffer.size': key(posInt, 1024, 'topology', 'bounded receive queue per executor'),
  'topology.executor.overflow.limit': key(posInt, 65536, 'topology', 'tuples from other workers a task may hold past its full receive queue (sent before its peers heard it is overloaded) before its worker stops reading from the network until it drains; a last guard that bounds memory against a peer that does not hold back'),
  'topology.load.update.interval.ms': key(z.number().int().min(10).max(60000), 100, 'topology', 'twoChoice / loadAwareShuffle groupings: how often a worker refreshes its tasks\' load figures (queue, mean service time) and publishes them to its peers over the tuple links; also how often loadAwareShuffle re-weighs its targets'),
  'topology.load.stale.ms': key(z.number().int().min(10), 1000, 'topology', 'twoChoice / loadAwareShuffle: a remote task\'s load figure older than this (transit + time since arrival) is not used; the grouping picks at random instead'),
  'topology.localityaware.higher.bound': key(unit, 0.8, 'topology', 'loadAwareShuffle: above this mean load (queue fill) of the tasks in its own worker, a sender spreads to every task'),
  'topology.localityaware.lower.bound': key(unit, 0.2, 'topology', 'loadAwareShuffle: below this mean load of the tasks in its own worker, a sender keeps to them again (must be below the higher bound)'),
  'topology.transfer.buffer.size': key(posInt, 8192, 'topology', 'tuples queued towards one remote worker before the sender waits'),
  'topology.transfer.max.frame.bytes': key(z.number().int().min(65536), 64 * 1024 * 1024, 'topology', 'largest ZeroMQ frame a worker accepts (ZeroMQ maxMessageSize; a peer sending a bigger one is disconnected); senders split batches to stay below it, and drop (counted, logged) a single tuple that alone exceeds it'),
  'topology.state.provider': key(z.enum(['memory', 'redis']), 'memory', 'topology', 'where stateful bolts keep their state (Storm\'s topology.state.provider): memory (in the worker process, lost with it: for development and tests) or redis (survives a crash, a kill and a resubmit; topology.state.provider.config says where)'),
  'topology.state.provider.config': key(stateProviderConfigSchema, {}, 'topology', 'the state store\'s settings, a map: url (redis://host:port[/db], default redis://127.0.0.1:6379), urlEnv (the name of an environment variable holding the URL where the workers run, which wins over url: a password then never enters the topology\'s config), keyPrefix (default "hstorm:state:"), connectTimeoutMs and commandTimeoutMs (default 5000 each: a checkpoint that waits longer on Redis fails and is retried)'),
  'topology.state.checkpoint.interval.ms': key(z.number().int().min(100), 1000, 'topology', 'how often stateful bolts checkpoint their state (Storm\'s default 1000, at least 100); a stateful bolt\'s input is acked at the checkpoint after it, so this must be below topology.message.timeout.secs, and topology.max.spout.pending must cover the tuples a spout emits in one interval'),
  'topology.spout.wait.ms': key(z.number().min(0), 1, 'topology', 'spout sleep when nextTuple emits nothing'),
  'topology.subprocess.timeout.secs': key(posNum.nullable(), null, 'topology', 'multilang (ShellBolt/ShellSpout): a subprocess silent this long while it owes an answer (a heartbeat sync, a spout sync) is killed, its pending tuples failed, and it is restarted; null: nimbus.task.timeout.secs, as Storm falls back to supervisor.worker.timeout.secs'),
  'topology.tick.tuple.freq.secs': key(posNum.nullable(), null, 'topology', "Storm's tick tuples: every bolt task gets a tuple from component __system on stream __tick (values [rate_secs]) this often, in seconds (fractions allowed, unlike Storm); set it topology-wide, or per component with addConfiguration or the component's getComponentConfiguration(); null: none"),
  'topology.stats.report.secs': key(posNum, 10, 'topology', "how often a worker writes its metrics record (counters, latency histograms, split, GPU and user metrics) to ZooKeeper, which the UI, describe, /metrics and the split's capacity policy read; liveness travels apart, every worker.heartbeat.frequency.secs (Storm's executor.metrics.frequency.secs, 60 there); hstorm local and LocalCluster default to 1"),
  'topology.gpu.batch.size': key(posInt, 16, 'topology', 'tuples gathered into one GPU kernel launch'),
  'topology.gpu.batch.max.wait.ms': key(z.number().min(0), 2, 'topology', 'longest wait for a GPU batch to fill'),
  'topology.gpu.launches.in.flight': key(posInt, 2, 'topology', 'kernel launches in flight per GPU bolt task'),
  'topology.gpu.cpu.threads': key(posInt.nullable(), null, 'topology', 'thread pool per worker for CPU-backend kernels (default: cores)'),
  'topology.gpu.backend': key(z.enum(['auto', 'webgpu', 'headlessgl', 'webasm', 'cpu']), 'auto', 'topology', 'force a gpu.js backend (auto: by slot)'),
  'topology.component.cpu.pcore.percent': key(z.number().min(0), 10, 'topology', 'CPU one executor needs, in percent of a core (Storm RAS); per component with setCPULoad()'),
  'topology.component.resources.onheap.memory.mb': key(z.number().min(0), 128, 'topology', 'memory one executor needs, in MB (Storm RAS); per component with setMemoryLoad()'),
  'topology.gpu.memory.mb': key(z.number().min(0), 0, 'topology', 'GPU memory one GPU executor needs, in MB, when its .gpu() declares none; 0: not declared (shared by GPU slots only)'),
  'hstorm.scheduler.alpha': key(unit, 0, 'topology', 'α: 0 spreads executors evenly, 1 packs connected executors'),
  'hstorm.gpu.beta': key(unit, 0.3, 'topology', 'β: weight of GPU performance against idleness'),
  'hstorm.split.gamma0': key(unit, 0.5, 'topology', 'initial share γ of tuples sent to the GPU stream'),
  'hstorm.split.theta': key(unit, 0.9, 'topology', 'θ: how fast γ follows δ'),
  'hstorm.split.sample.ms': key(posNum, 100, 'topology', 'τ: latency sampling period'),
  'hstorm.split.window.ms': key(posNum, 1000, 'topology', 'T: controller window'),
  'hstorm.split.max.window': key(posInt, 20, 'topology', 'largest decision window n'),
  'hstorm.split.policy': key(z.enum(['latency', 'capacity']), 'latency', 'topology', 'how δ is measured'),
} satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;
/** The type of a key's value, from its schema: `ConfigValue<'topology.max.spout.pending'>` is `number | null`. */
export type ConfigValue<K extends ConfigKey> = z.output<(typeof CONFIG_KEYS)[K]['schema']>;
/** Keys a topology may set (its own config, `-c` at submit, a component's `addConfiguration`). */
export type TopologyConfigKey = { [K in ConfigKey]: (typeof CONFIG_KEYS)[K]['scope'] extends 'topology' ? K : never }[ConfigKey];

/** Keys under these prefixes are hstorm's: an unknown one is a typo, not a user key. */
export const RESERVED_PREFIXES = ['hstorm.', 'nimbus.', 'supervisor.', 'worker.', 'topology.'];
