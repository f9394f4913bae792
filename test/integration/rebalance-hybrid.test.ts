/**
 * `rebalance -n` keeps a hybrid topology flowing (issue 31 item 1). The hybrid form of the acking fixture (a spout
 * splitting ids between a CPU relay and a `.gpu()` relay in one GPU worker of three, on a declared GPU) is rebalanced
 * 3 → 4 → 3 → 2 workers under load, with acking on and one acker per worker. Before the fix the GPU worker kept its
 * tasks across `-n 4`, so the supervisor kept it running with its list of 3 ackers while the new workers used 4: acks
 * hashed to different ackers, trees never completed, and acking crawled at a few ids a second. After each rebalance
 * the acked rate must come back to 0.8× what it was before (waited on with a deadline, never sampled once), and at the
 * end every id is acked and reached the sink.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import type { DeclaredGpu } from '../../common/config/schema.js';
import { silentLogger } from '../../common/logger.js';
import { loadConfiguredTopology } from '../../worker/load-topology.js';
import { readAcked, readSinkIds } from '../fixtures/acking-topology.js';
import { waitFor } from '../helpers/wait-for.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'acking-topology.js');
const GPU: DeclaredGpu = { id: 'vgpu0', name: 'test GPU (declared, no device)', smCount: 10, clockMHz: 1500, memoryMB: 8192, computeCapability: '6.1', slots: 2 };
const SPOUTS = 1;
/** Ids per spout task and their pace: ~60 s of traffic, long enough for three rebalances. */
const MESSAGES = 12000;
const RATE = 200;

describe('rebalance -n of a hybrid topology (declared GPU, real worker processes)', function () {
  this.timeout(300_000);
  let cluster: LocalCluster | null = null;
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-rebalance-hybrid-'));
  });
  after(async () => {
    await cluster?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  const acked = (): number => Array.from({ length: SPOUTS }, (_, t) => readAcked(dir, t).size).reduce((a, b) => a + b, 0);

  /** Ids acked per second over the next `ms` (a rate, not a bound on elapsed time). */
  const ackRate = async (ms: number): Promise<number> => {
    const [n0, t0] = [acked(), Date.now()];
    await new Promise((r) => setTimeout(r, ms));
    return ((acked() - n0) * 1000) / (Date.now() - t0);
  };

  it('acks at the rate it had before each rebalance, and loses no id', async () => {
    const c = (cluster = await LocalCluster.start({
      log: silentLogger(),
      portsNeeded: 5,
      clusterConfig: { 'supervisor.gpu.discovery': 'declared', 'supervisor.gpus': [GPU], 'nimbus.scheduler.gpu.fallback.cpu': false },
    }));
    const overrides = { 'acking.split': true, 'acking.dir': dir, 'acking.messages': MESSAGES, 'acking.rate': RATE, 'acking.spouts': SPOUTS, 'acking.sink.record': true };
    const { def, topologyConfig } = await loadConfiguredTopology(FIXTURE, overrides);
    await c.submit('hy', FIXTURE, def, topologyConfig);
    const running = (workers: number) =>
      waitFor(`${workers} workers running, one on the GPU`, async () => {
        const d = await c.topologyDetail('hy');
        return d.status === 'active' && d.unassigned.length === 0 && d.workers.length === workers && d.workers.filter((w) => w.gpu).length === 1 && d.workers.every((w) => w.liveness === 'alive' && w.metrics?.epoch === d.epoch) ? d : null;
      }, 120_000, 250);
    await running(3);
    await waitFor('acking under way', () => acked() >= 200, 60_000, 100);
    const before = await ackRate(3000);
    assert.ok(before > 0, 'ids are acked before the rebalance');

    for (const workers of [4, 3, 2]) {
      await c.rebalance('hy', { workers });
      await running(workers);
      // A window under 0.8× right after the restart is the restart, not the bug: wait for one that is not.
      await waitFor(`acked rate back to 0.8 × ${before.toFixed(0)}/s after -n ${workers}`, async () => (await ackRate(2000)) >= 0.8 * before, 60_000, 0);
    }

    await waitFor('every id acked', () => acked() === SPOUTS * MESSAGES, 180_000, 250);
    const sink = readSinkIds(dir);
    const lost = Array.from({ length: SPOUTS }, (_, t) => Array.from({ length: MESSAGES }, (_, n) => t * 1_000_000 + n)).flat().filter((id) => !sink.has(id));
    assert.deepEqual(lost, [], 'ids that never reached the sink');
  });
});
