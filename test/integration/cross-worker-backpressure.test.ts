/**
 * Per-task backpressure between two real worker processes (local mode:
 * nimbus and a supervisor in this process, workers as child processes over
 * real ZeroMQ). Each worker runs a slow relay and a slow sink that trade
 * tuples with the other worker's, with 16-tuple queues and 1000 tuples
 * pending per spout (test/fixtures/cross-worker-topology.ts). When a worker
 * stopped reading its whole link whenever one queue was full, the two
 * workers stalled each other for good; now a worker whose executors wait for
 * the other keeps reading, and announces its full task to the peer, which
 * holds what it would send it while everything else — acks included — keeps
 * flowing. Every message must be acked exactly once, none failed, and every
 * id reach a sink exactly once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { silentLogger } from '../../common/logger.js';
import { loadConfiguredTopology } from '../../worker/index.js';
import { readAcked, readSinkIds } from '../fixtures/acking-topology.js';
import { waitFor } from '../helpers/wait-for.js';

const TOPOLOGY = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'cross-worker-topology.js');
const MESSAGES = 1500;

describe('per-task backpressure between two workers (real worker processes, real ZeroMQ)', function () {
  this.timeout(360_000);
  let cluster: LocalCluster | null = null;
  let dir: string;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-crossbp-'))));
  afterEach(async () => {
    await cluster?.shutdown();
    cluster = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('two workers whose slow bolts send to each other never stall each other: every message acked once, nothing lost', async () => {
    cluster = await LocalCluster.start({ log: silentLogger(), clusterConfig: { 'nimbus.scheduler': 'even' }, portsNeeded: 2 });
    const overrides = { 'cross.dir': dir, 'cross.messages': MESSAGES, 'cross.pad.bytes': 16_384, 'cross.spin.ms': 0.5 };
    const { def, topologyConfig } = await loadConfiguredTopology(TOPOLOGY, overrides);
    await cluster.submit('crossfire', TOPOLOGY, def, topologyConfig);
    const c = cluster;
    const running = await waitFor(
      'both workers heartbeating',
      async () => {
        const d = await c.topologyDetail('crossfire');
        return d.workers.length === 2 && d.workers.every((w) => w.metrics !== null) ? d : null;
      },
      60_000,
      200,
    );
    // The stall needs slow tasks on both sides of the link: each worker runs a relay and a sink.
    for (const w of running.workers) {
      const components = w.executors.map((e) => e.component);
      assert.ok(components.includes('relay') && components.includes('sink'), `worker ${w.port} runs a relay and a sink: ${components.join(', ')}`);
    }

    const acked = () => readAcked(dir, 0).size + readAcked(dir, 1).size;
    let last = -1;
    let lastChange = Date.now();
    // Progress is watched, not only the end: a stall ends the wait after 60 s without a single new ack.
    const outcome = await waitFor(
      `all ${2 * MESSAGES} messages acked, or 60 s without progress`,
      () => {
        const n = acked();
        if (n !== last) [last, lastChange] = [n, Date.now()];
        if (n === 2 * MESSAGES) return { stalledAt: null };
        return Date.now() - lastChange > 60_000 ? { stalledAt: n } : null;
      },
      240_000,
      250,
    );
    assert.equal(outcome.stalledAt, null, `the workers stalled each other at ${outcome.stalledAt} of ${2 * MESSAGES} acked`);

    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.failed')), [], 'no message failed');
    for (const task of [0, 1]) assert.equal(readAcked(dir, task).size, MESSAGES, `spout task ${task}: every id acked`);
    const sunk = readSinkIds(dir);
    assert.equal(sunk.size, 2 * MESSAGES, 'every id reached a sink');
    const twice = [...sunk].filter(([, times]) => times !== 1);
    assert.deepEqual(twice, [], 'each id executed by a sink exactly once');

    // It was per-task backpressure that carried it: tasks filled and were announced, peers held for them, and no
    // worker had to stop reading its link for the last guard.
    const bp = await waitFor(
      'heartbeats that show the backpressure exchanged',
      async () => {
        const stats = (await c.topologyDetail('crossfire')).workers.map((w) => w.metrics?.backpressure ?? null);
        return stats.every((b) => b !== null) && stats.some((b) => b!.statusesReceived > 0) ? stats.map((b) => b!) : null;
      },
      30_000,
      250,
    );
    assert.ok(bp.some((b) => b.overloadEvents > 0 && b.statusesSent > 0), `a task was overloaded and announced: ${JSON.stringify(bp)}`);
    assert.ok(bp.some((b) => b.heldChecks > 0), `a sender held back for an overloaded task in the other worker: ${JSON.stringify(bp)}`);
    assert.deepEqual(bp.map((b) => b.linkPauses), [0, 0], 'no worker reached the overflow limit');
  });
});
