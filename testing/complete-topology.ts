/**
 * Storm's `Testing.completeTopology` for hstorm: runs a topology module on a
 * LocalCluster (real worker processes) with its spouts optionally replaced by
 * fixed tuples (Storm's MockedSources, per stream), until every mocked tuple
 * is acked or failed and the topology is quiet (no executor made progress
 * between two heartbeats, every queue empty) — or, for a topology that is
 * never quiet (bolts emitting on tick tuples), until the caller's `until`
 * holds — and returns what each component emitted, per stream, direct streams
 * included, with the values' real types (a Map, a Date, a registered class).
 * It stops at once if a worker keeps dying at start (HSTORM_ERR_LOCAL_CRASH_LOOP)
 * and leaves no temporary directory behind, passed or failed.
 *
 * @example
 * const result = await completeTopology('topologies/word-count.ts', {
 *   mockedSources: { sentences: [['the cow jumped'], ['over the moon']] },
 * });
 * assert.deepEqual(result.readTuples('split'), [['the'], ['cow'], …]);
 */
import { writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LocalCluster } from '../cli/local-cluster.js';
import { crashLoopOf } from '../cli/crash-loop.js';
import { TestingTimeoutError, TopologyLoadError } from '../common/errors.js';
import { buildConfig } from '../common/config/index.js';
import { CHECKPOINT_COMPONENT } from '../common/topology-def.js';
import { silentLogger, type Logger } from '../common/logger.js';
import { packageRoot } from '../common/package-root.js';
import type { WorkerHeartbeat } from '../common/storm-base.js';
import { makeTempDir, removeTempDir } from '../common/temp-dirs.js';
import { compileTsModule, isTypeScript } from '../common/ts-module.js';
import { resourcesHomeBanner } from '../common/resources-home.js';
import { resourcesDirFor } from '../topology-sdk/internal/multilang-resources.js';
import type { StormTopology } from '../topology-sdk/topology-builder.js';
import { defaultTopologyName, encodeRecord, inspectValues, loadConfiguredTopology, loadTopology, resolveModulePath, toWireForm, ValueTypes } from '../worker/index.js';
import { CAPTURE_DIR_KEY, readCaptured, type CapturedTuple } from './capture.js';
import { MOCKED_SOURCES_KEY } from './mocked-spout.js';
import { resolveMocked, type MockedData, type MockedSourcesInput } from './mocked-sources.js';

export interface CompleteTopologyOptions {
  /**
   * Spout id → the tuples it emits instead of running, spread over its tasks: a list (its default stream, or its
   * first) or stream id → list; or a MockedSources (Storm's addMockData).
   */
  mockedSources?: MockedSourcesInput;
  /** Topology config overrides (as `-c`). */
  config?: Record<string, unknown>;
  /** Give up (and throw HSTORM_ERR_TESTING_TIMEOUT) after this long. Default 60 000. */
  timeoutMs?: number;
  /**
   * Complete as soon as this holds for what was emitted so far (once every mocked tuple is done), instead of waiting
   * for the topology to go quiet — which a topology whose bolts emit on tick tuples never does.
   */
  until?: (soFar: CompletedTopology) => boolean;
  /** Run on this cluster (left running); default a fresh LocalCluster, shut down at the end. */
  cluster?: LocalCluster;
  /** Topology name; default from the module's file or directory name. */
  name?: string;
  log?: Logger;
}

export interface CompletedTopology {
  /** Component id → stream id → the value lists it emitted (each task's in emit order, task by task). */
  emitted: Record<string, Record<string, unknown[][]>>;
  /** Every emit with where it came from (task) and, for emitDirect, where it went. */
  tuples: CapturedTuple[];
  /** Storm's `Testing.readTuples(result, component, stream)`. */
  readTuples(component: string, stream?: string): unknown[][];
  /** Per spout: tuples acked and failed (complete trees). */
  acked: Record<string, number>;
  failed: Record<string, number>;
}

/** The heartbeat period of a cluster completeTopology starts: short, so a test ends soon after its tuples do. */
const BEAT_SECS = 0.25;
let runs = 0;

/**
 * `module`: the topology module (a path or file URL, .ts or .js), or a StormTopology that knows the module that
 * built it (`origin`; see LocalCluster.submitTopology).
 */
export async function completeTopology(module: string | URL | StormTopology, opts: CompleteTopologyOptions = {}): Promise<CompletedTopology> {
  const origin = typeof module === 'string' ? module : module instanceof URL ? fileURLToPath(module) : module.origin;
  if (!origin) throw new TopologyLoadError('completeTopology: the topology does not say which module built it; pass the path of its module', '(unknown)');
  const source = resolveModulePath(origin, packageRoot());
  const dir = await makeTempDir('hstorm-test-');
  const log = opts.log ?? silentLogger();
  let cluster: LocalCluster | null = opts.cluster ?? null;
  const owned = cluster === null;
  try {
    const target = isTypeScript(source) ? await compileTsModule(source) : source;
    const captureDir = join(dir, 'capture');
    await mkdir(captureDir);
    // A module that wraps the one under test: the test process and every worker build the same wrapped topology from it.
    // It lies in a temporary directory, so it says where the scripts of the module under test are (its resources/, or
    // its source twin's for a module compiled to dist/): its ShellBolts find them as when the module runs itself.
    const wrapper = join(dir, 'topology-under-test.mjs');
    await writeFile(
      wrapper,
      `${resourcesHomeBanner(resourcesDirFor(dirname(source)))}\n` +
        `import * as under from ${JSON.stringify(pathToFileURL(target).href)};\n` +
        `import { wrapForTesting } from ${JSON.stringify(pathToFileURL(join(packageRoot(), 'dist', 'testing', 'wrap-topology.js')).href)};\n` +
        'export default (ctx) => wrapForTesting(under.default, ctx);\n',
    );
    // Once without mocks: the definition says which spouts and streams may be mocked, the code which classes travel.
    const probe = await loadTopology(wrapper, buildConfig([opts.config ?? {}], { allowUserKeys: true, crossKeys: false }));
    const types = new ValueTypes(probe.topology.serializations);
    const mocked = resolveMocked(opts.mockedSources, probe.def);
    const overrides = { ...opts.config, [MOCKED_SOURCES_KEY]: encodeMocked(mocked, types), [CAPTURE_DIR_KEY]: captureDir };
    const { def, topologyConfig, config, topology } = await loadConfiguredTopology(wrapper, overrides);
    cluster ??= await LocalCluster.start({
      log,
      portsNeeded: config['topology.workers'],
      clusterConfig: { 'worker.heartbeat.frequency.secs': BEAT_SECS },
    });
    const name = opts.name ?? `${defaultTopologyName(source)}-test-${++runs}`;
    // FeederSpouts of the module (the test's, when it imported the same file) are fed from this process.
    const { topologyId } = await cluster.submit(name, wrapper, def, { ...topologyConfig, ...cluster.connectLocalEndpoints(name, topology) });
    const spouts = def.components.filter((c) => c.kind === 'spout').map((c) => c.id);
    const expected = new Map(Object.entries(mocked).map(([id, streams]) => [id, Object.values(streams).reduce((n, l) => n + l.length, 0)]));
    const c = cluster;
    const until = opts.until;
    const beats = await waitComplete(
      {
        latest: () => c.heartbeats(topologyId),
        crashLoop: async () => crashLoopOf(await c.topologyDetail(name)),
        until: until && (async () => until(resultOf(await readCaptured(captureDir, types), {}, {}))),
        // A stateful topology never goes quiet (its checkpoint spout runs on); its emits are all anchored, so a
        // mocked tuple acked means everything it led to was processed and captured.
        ackedIsEnough: def.components.some((x) => x.id === CHECKPOINT_COMPONENT),
      },
      expected,
      config['topology.workers'],
      opts.timeoutMs ?? 60_000,
      name,
    );
    await cluster.kill(name, 0);
    const acked: Record<string, number> = {};
    const failed: Record<string, number> = {};
    for (const id of spouts) {
      const ex = beats.flatMap((b) => b.executors.filter((e) => e.component === id));
      acked[id] = ex.reduce((s, e) => s + e.acked, 0);
      failed[id] = ex.reduce((s, e) => s + e.failed, 0);
    }
    return resultOf(await readCaptured(captureDir, types), acked, failed);
  } finally {
    if (owned) await cluster?.shutdown();
    await removeTempDir(dir);
  }
}

function resultOf(tuples: CapturedTuple[], acked: Record<string, number>, failed: Record<string, number>): CompletedTopology {
  const emitted: CompletedTopology['emitted'] = {};
  for (const t of tuples) ((emitted[t.component] ??= {})[t.stream] ??= []).push(t.values);
  return { emitted, tuples, acked: { ...acked }, failed: { ...failed }, readTuples: (component, stream = 'default') => emitted[component]?.[stream] ?? [] };
}

/** The mocked tuples for the config: one wire record, values in their wire form, as base64. */
function encodeMocked(mocked: MockedData, types: ValueTypes): string {
  const wire: MockedData = {};
  for (const [spout, streams] of Object.entries(mocked)) {
    for (const [stream, list] of Object.entries(streams)) {
      (wire[spout] ??= {})[stream] = list.map((values) => (inspectValues(values, types) ? toWireForm(values, types) : values));
    }
  }
  return encodeRecord(wire).toString('base64');
}

interface Probes {
  latest: () => Promise<WorkerHeartbeat[]>;
  crashLoop: () => Promise<Error | null>;
  until: (() => Promise<boolean>) | undefined;
  /** Done once the mocked tuples completed, quiet or not (a stateful topology: see completeTopology). */
  ackedIsEnough: boolean;
}

/**
 * Polls heartbeats until every mocked spout has all its tuples acked or failed and then either `until` holds or two
 * polls a beat apart see no progress and empty queues; throws at once when a worker crash-loops.
 */
async function waitComplete(p: Probes, expected: ReadonlyMap<string, number>, workers: number, timeoutMs: number, name: string): Promise<WorkerHeartbeat[]> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  /** Each worker's record time at the last poll that judged progress. */
  const seen = new Map<number, number>();
  let beats: WorkerHeartbeat[] = [];
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, BEAT_SECS * 1000 * 1.5));
    const looping = await p.crashLoop();
    if (looping) throw looping;
    beats = await p.latest();
    if (beats.length < workers) continue;
    const executors = beats.flatMap((b) => b.executors);
    const done = [...expected].every(([id, n]) => executors.filter((e) => e.component === id).reduce((s, e) => s + e.acked + e.failed, 0) >= n);
    if (done && p.until) {
      if (await p.until()) return beats;
      continue;
    }
    if (done && p.ackedIsEnough) return beats;
    // Quiet means no progress between two records of every worker: a poll that finds a worker's record unchanged
    // (records are written every topology.stats.report.secs, on each worker's own phase) says nothing yet.
    if (!beats.every((b) => seen.get(b.port) !== b.time)) continue;
    for (const b of beats) seen.set(b.port, b.time);
    const progress = executors.reduce((s, e) => s + e.executed + e.emitted + e.acked + e.failed, 0);
    const queued = executors.reduce((s, e) => s + e.queueDepth, 0);
    if (done && queued === 0 && progress === last) return beats;
    last = progress;
  }
  const executors = beats.flatMap((b) => b.executors);
  const state = [...expected].map(([id, n]) => `${id}: ${executors.filter((e) => e.component === id).reduce((s, e) => s + e.acked + e.failed, 0)} of ${n} complete`).join(', ');
  const why = p.until ? '; its `until` never held' : '';
  throw new TestingTimeoutError(`topology ${name} did not complete within ${timeoutMs} ms (${state || 'no mocked sources'}; ${beats.length} of ${workers} workers heartbeating${why})`);
}
