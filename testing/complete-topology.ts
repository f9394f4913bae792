/**
 * Storm's `Testing.completeTopology` for hstorm: runs a topology module on a
 * LocalCluster (real worker processes) with its spouts optionally replaced
 * by fixed tuples (Storm's MockedSources), until every mocked tuple is acked
 * or failed and the topology is quiet (no executor made progress between two
 * heartbeats, every queue empty) — or a timeout — and returns the tuples each
 * component emitted, per stream.
 *
 * @example
 * const result = await completeTopology('topologies/word-count.ts', {
 *   mockedSources: { sentences: [['the cow jumped'], ['over the moon']] },
 * });
 * assert.deepEqual(result.readTuples('split'), [['the'], ['cow'], …]);
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LocalCluster } from '../cli/local-cluster.js';
import { TestingTimeoutError } from '../common/errors.js';
import { CHECKPOINT_COMPONENT } from '../common/topology-def.js';
import { silentLogger, type Logger } from '../common/logger.js';
import { packageRoot } from '../common/package-root.js';
import type { WorkerHeartbeat } from '../common/storm-base.js';
import { compileTsModule, isTypeScript } from '../common/ts-module.js';
import { defaultTopologyName, loadConfiguredTopology, resolveModulePath } from '../worker/index.js';
import { CAPTURE_COMPONENT, CAPTURE_DIR_KEY, MOCKED_SOURCES_KEY, decodeValues, type CapturedLine } from './testing-parts.js';

export interface CompleteTopologyOptions {
  /** Spout id → the tuples (value lists) it emits instead of running the spout, spread over its tasks. */
  mockedSources?: Record<string, unknown[][]>;
  /** Topology config overrides (as `-c`). */
  config?: Record<string, unknown>;
  /** Give up (and throw HSTORM_ERR_TESTING_TIMEOUT) after this long. Default 60 000. */
  timeoutMs?: number;
  /** Run on this cluster (left running); default a fresh LocalCluster, shut down at the end. */
  cluster?: LocalCluster;
  /** Topology name; default from the module's file or directory name. */
  name?: string;
  log?: Logger;
}

export interface CompletedTopology {
  /** Component id → stream id → the value lists it emitted, in the order the capture bolt received them. */
  emitted: Record<string, Record<string, unknown[][]>>;
  /** Storm's `Testing.readTuples(result, component, stream)`. */
  readTuples(component: string, stream?: string): unknown[][];
  /** Per spout: tuples acked and failed (complete trees). */
  acked: Record<string, number>;
  failed: Record<string, number>;
}

/** The heartbeat period of a cluster completeTopology starts: short, so a test ends soon after its tuples do. */
const BEAT_SECS = 0.25;
let runs = 0;

export async function completeTopology(module: string, opts: CompleteTopologyOptions = {}): Promise<CompletedTopology> {
  const source = resolveModulePath(module, packageRoot());
  const target = isTypeScript(source) ? await compileTsModule(source) : source;
  const dir = await mkdtemp(join(tmpdir(), 'hstorm-test-'));
  const captureDir = join(dir, 'capture');
  await mkdir(captureDir);
  // A module that wraps the one under test: the test process and every worker build the same wrapped topology from it.
  const wrapper = join(dir, 'topology-under-test.mjs');
  await writeFile(
    wrapper,
    `import * as under from ${JSON.stringify(pathToFileURL(target).href)};\n` +
      `import { wrapForTesting } from ${JSON.stringify(pathToFileURL(join(packageRoot(), 'dist', 'testing', 'wrap-topology.js')).href)};\n` +
      'export default (ctx) => wrapForTesting(under.default, ctx);\n',
  );
  const mocked = opts.mockedSources ?? {};
  const overrides = { ...opts.config, [MOCKED_SOURCES_KEY]: mocked, [CAPTURE_DIR_KEY]: captureDir };
  const log = opts.log ?? silentLogger();
  let cluster: LocalCluster | null = opts.cluster ?? null;
  const owned = cluster === null;
  try {
    const { def, topologyConfig, config } = await loadConfiguredTopology(wrapper, overrides);
    cluster ??= await LocalCluster.start({
      log,
      portsNeeded: config['topology.workers'],
      clusterConfig: { 'worker.heartbeat.frequency.secs': BEAT_SECS },
    });
    const name = opts.name ?? `${defaultTopologyName(source)}-test-${++runs}`;
    const { topologyId } = await cluster.submit(name, wrapper, def, topologyConfig);
    const spouts = def.components.filter((c) => c.kind === 'spout').map((c) => c.id);
    const expected = new Map(Object.entries(mocked).map(([id, tuples]) => [id, tuples.length]));
    const c = cluster;
    // A stateful topology never goes quiet (its checkpoint spout runs on); its emits are all anchored, so a mocked
    // tuple acked means everything it led to was processed and captured.
    const stateful = def.components.some((x) => x.id === CHECKPOINT_COMPONENT);
    const beats = await waitComplete(() => c.heartbeats(topologyId), expected, config['topology.workers'], opts.timeoutMs ?? 60_000, name, stateful);
    await cluster.kill(name, 0);
    const acked: Record<string, number> = {};
    const failed: Record<string, number> = {};
    for (const id of spouts) {
      const ex = beats.flatMap((b) => b.executors.filter((e) => e.component === id));
      acked[id] = ex.reduce((s, e) => s + e.acked, 0);
      failed[id] = ex.reduce((s, e) => s + e.failed, 0);
    }
    const emitted = await readCaptured(captureDir);
    return { emitted, acked, failed, readTuples: (component, stream = 'default') => emitted[component]?.[stream] ?? [] };
  } finally {
    if (owned) await cluster?.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Polls heartbeats until every mocked spout has all its tuples acked or
 * failed and two polls a beat apart see no progress and empty queues.
 */
async function waitComplete(
  latest: () => Promise<WorkerHeartbeat[]>,
  expected: ReadonlyMap<string, number>,
  workers: number,
  timeoutMs: number,
  name: string,
  /** Done once the mocked tuples completed (a stateful topology: see above). */
  ackedIsEnough = false,
): Promise<WorkerHeartbeat[]> {
  const until = Date.now() + timeoutMs;
  let last = -1;
  let beats: WorkerHeartbeat[] = [];
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, BEAT_SECS * 1000 * 1.5));
    beats = await latest();
    if (beats.length < workers) continue;
    const executors = beats.flatMap((b) => b.executors);
    const done = [...expected].every(([id, n]) => executors.filter((e) => e.component === id).reduce((s, e) => s + e.acked + e.failed, 0) >= n);
    const progress = executors.reduce((s, e) => s + e.executed + e.emitted + e.acked + e.failed, 0);
    const queued = executors.reduce((s, e) => s + e.queueDepth, 0);
    if (done && (ackedIsEnough || (queued === 0 && progress === last))) return beats;
    last = progress;
  }
  const executors = beats.flatMap((b) => b.executors);
  const state = [...expected].map(([id, n]) => `${id}: ${executors.filter((e) => e.component === id).reduce((s, e) => s + e.acked + e.failed, 0)} of ${n} complete`).join(', ');
  throw new TestingTimeoutError(`topology ${name} did not complete within ${timeoutMs} ms (${state || 'no mocked sources'}; ${beats.length} of ${workers} workers heartbeating)`);
}

async function readCaptured(dir: string): Promise<CompletedTopology['emitted']> {
  const out: CompletedTopology['emitted'] = {};
  for (const file of (await readdir(dir)).sort()) {
    for (const line of (await readFile(join(dir, file), 'utf8')).split('\n')) {
      if (!line) continue;
      const l = decodeValues(line) as unknown as CapturedLine;
      if (l.component === CAPTURE_COMPONENT) continue;
      ((out[l.component] ??= {})[l.stream] ??= []).push(l.values);
    }
  }
  return out;
}
