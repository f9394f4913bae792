/**
 * The split follows what runs, and tuples towards an unplaced component fail at once (issue 30), on a real cluster:
 * ZooKeeper, nimbus and supervisors started through the CLI, without a GPU at first (`hetero`, no CPU fallback).
 *
 * - examples/hybrid-matmul: its GPU dealers are left unassigned. The reader's split sends nothing to the GPU stream,
 *   γ goes to 0 within a few windows, nothing fails and the CPU side carries every tuple. Then a supervisor with a
 *   (declared) GPU joins: the GPU dealers are placed, γ restarts from γ0 and the GPU side takes tuples again.
 * - A plain topology whose only bolt is a GPU bolt: every spout tuple fails at once with the scheduler's reason
 *   (`describe` counts them per stream and target, and the spout's last error says why), not after the timeout.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { DeclaredGpu } from '../../common/config/schema.js';
import type { TopologyDetail } from '../../nimbus/views.js';
import { PACKAGE_ROOT, ProcessCluster, waitFor } from '../helpers/cluster-processes.js';

const HYBRID = join(PACKAGE_ROOT, 'dist', 'examples', 'hybrid-matmul', 'index.js');
const GPU_TOPOLOGY = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'gpu-topology.js');
const GPU: DeclaredGpu = { id: 'gtx1060', name: 'GeForce GTX 1060', smCount: 10, coresPerSm: 128, clockMHz: 1708, memoryMB: 6144, computeCapability: '6.1', slots: 2 };

interface SplitView {
  gamma: number;
  sentCpu: number;
  sentGpu: number;
  sides?: { gpu: { downSince: number | null; reason: string | null } };
  applied: { gamma: number; publishedAt: number }[];
}

describe('split and fail-fast towards unplaced components (real processes, no GPU at first)', function () {
  this.timeout(300_000);
  let cluster: ProcessCluster;

  before(async function () {
    this.timeout(120_000);
    cluster = await ProcessCluster.start({ supervisors: [{ id: 'sup-a', slots: 3 }, { id: 'sup-b', slots: 3 }], config: { 'nimbus.scheduler': 'hetero' } });
  });

  after(async function () {
    this.timeout(60_000);
    await cluster?.stop();
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') process.stderr.write(`${cluster.logs(30)}\n`);
    await cluster.killAll().catch(() => undefined);
    await waitFor('no topology left', async () => (await cluster.list()).length === 0, 60_000, 500).catch(() => undefined);
  });

  const describeWhen = (name: string, what: string, ok: (d: TopologyDetail) => boolean, timeoutMs = 120_000) =>
    waitFor(what, async () => {
      const d = await cluster.describe(name);
      return ok(d) ? d : null;
    }, timeoutMs, 250);
  const splitOf = (d: TopologyDetail): SplitView | null => (d.components.reader?.split as SplitView | null | undefined) ?? null;

  it('sends nothing to a GPU side that is not placed, γ → 0, and moves back when a GPU joins', async () => {
    await cluster.submit(HYBRID, 'hm', { 'matmul.dim': 16, 'hstorm.split.window.ms': 500 });
    const d0 = await describeWhen('hm', 'GPU dealers unassigned, the reader acking', (d) => d.unassigned.some((u) => u.component === 'gpu-dealer') && (d.components.reader?.acked ?? 0) > 20);
    assert.match(d0.unassigned.find((u) => u.component === 'gpu-dealer')!.reason, /GPU/);
    const d1 = await describeWhen('hm', 'γ ≤ 0.05', (d) => (splitOf(d)?.gamma ?? 1) <= 0.05, 60_000);
    const s1 = splitOf(d1)!;
    assert.ok(s1.sides?.gpu.downSince != null, 'the split says the GPU side is down');
    assert.match(s1.sides!.gpu.reason!, /gpu-dealer/);
    // Over the next stretch: the GPU stream gets nothing more, nothing fails, the CPU side carries every tuple.
    const d2 = await describeWhen('hm', 'more tuples acked', (d) => d.components.reader!.acked >= d1.components.reader!.acked + 50, 60_000);
    const s2 = splitOf(d2)!;
    assert.equal(s2.sentGpu, s1.sentGpu, 'nothing sent to the GPU stream');
    assert.ok(s2.sentCpu > s1.sentCpu);
    assert.equal(d2.components.reader!.failed, d1.components.reader!.failed, 'no new failures');
    assert.ok(d2.components['cpu-dealer']!.executed > d1.components['cpu-dealer']!.executed);

    const joinedAt = Date.now();
    await cluster.addSupervisor({ id: 'sup-gpu', slots: 2, gpus: [GPU] });
    const d3 = await describeWhen('hm', 'the GPU dealers placed and taking tuples', (d) => d.unassigned.length === 0 && (splitOf(d)?.sentGpu ?? 0) > s2.sentGpu && d.components['gpu-dealer']!.executed > 0, 120_000);
    assert.equal(splitOf(d3)!.sides?.gpu.downSince, null);
    // γ restarted from γ0: seen in the γ values the reader applied since the GPU joined, not only in the γ of the
    // moment — the "GPU" dealers here run a CPU fallback, slower than the CPU dealer on a loaded machine, so γ may
    // well learn its way back near 0 before a heartbeat shows it above.
    await describeWhen(
      'hm',
      'γ restarted from γ0 (published after the GPU joined, above 0.05)',
      (d) => (splitOf(d)?.applied ?? []).some((a) => a.publishedAt >= joinedAt && a.gamma > 0.05),
      60_000,
    );
  });

  it('fails every spout tuple towards an unplaced GPU bolt at once, with the scheduler\'s reason', async () => {
    // More GPU memory per executor than any GPU has (sup-gpu, if the test above added it, has 6 GB): never placed.
    await cluster.submit(GPU_TOPOLOGY, 'gpu-only', { 'topology.message.timeout.secs': 300, 'topology.gpu.memory.mb': 100_000 });
    const d = await describeWhen('gpu-only', 'spout tuples failed at once, counted per target', (x) => {
      const spout = x.components.matrices;
      return !!spout && spout.failed >= 5 && (spout.unplacedTargets ?? []).some((u) => u.component === 'multiply' && u.tuples >= 5);
    }, 60_000);
    // A message timeout of 300 s: these failures can only be the fail-fast ones.
    assert.ok(d.uptimeSecs < 300);
    const u = d.components.matrices!.unplacedTargets.find((x) => x.component === 'multiply')!;
    assert.equal(u.stream, 'default');
    assert.match(u.reason, /GPU/);
    assert.match(d.components.matrices!.lastError?.error ?? '', /to "multiply": not placed/);
    const text = await cluster.cli(['describe', 'gpu-only']);
    assert.match(text.stdout, /matrices: \d+ tuples to multiply on stream default: not placed \(/);
  });
});
