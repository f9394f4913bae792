/**
 * A GPU bolt in a stateful topology (test/fixtures/gpu-stateful-topology.ts):
 * the builder wraps every bolt that is not stateful in the checkpoint
 * forwarder, a GpuBolt too. Through that wrapper it must still run as a GPU
 * bolt — kernel launches, the backend that ran in its metrics (a CPU backend
 * on this machine, said as such: no GPU, no fallback claimed) — while the
 * checkpoints commit through it and the stateful bolt after it counts the
 * products.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'gpu-stateful-topology.js');

describe('a GPU bolt in a stateful topology', function () {
  this.timeout(180_000);

  it('runs its kernel behind the checkpoint forwarder, and the checkpoints commit through it', async () => {
    const summary = await runLocal({
      module: FIXTURE,
      durationSec: 120,
      overrides: {},
      drainSec: 3,
      // Enough to have seen both: kernel launches and a few commits after them.
      until: (s) => (s.components.multiply?.gpu?.launches ?? 0) >= 3 && (s.components.count?.state?.commits ?? 0) >= 3 && s.acked > 0,
    });
    const gpu = summary.components.multiply?.gpu;
    assert.ok(gpu, 'the GPU bolt reported its gpu section');
    assert.ok(gpu.launches >= 3, `kernel launches: ${gpu.launches}`);
    assert.equal(gpu.failedLaunches, 0);
    assert.ok(gpu.ran.length > 0 && gpu.ran.every((b) => b === 'webasm' || b === 'cpu' || b === 'webgpu'), `backends that ran: ${gpu.ran.join(', ')}`);
    if (!gpu.ran.includes('webgpu')) assert.equal(gpu.onGpu, false, 'a CPU backend is not reported as a GPU');
    const state = summary.components.count?.state;
    assert.ok(state && state.commits >= 3, `count's commits: ${state?.commits}`);
    assert.equal(state.failures, 0);
    assert.equal(summary.failed, 0);
    assert.ok((summary.components.count?.executed ?? 0) > 0 && state.keys === 1, 'the stateful bolt counted the products in its state');
  });
});
