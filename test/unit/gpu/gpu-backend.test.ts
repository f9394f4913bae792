import assert from 'node:assert/strict';
import { WorkerGpuBackends, selectGpuBackend, type GpuBackendProbes } from '../../../worker/gpu/gpu-backend.js';
import { isGpuBackend } from '../../../topology-sdk/gpu-backend-handle.js';
import { fakeContext } from '../../helpers/fake-context.js';

const H200 = { gpuId: 'GPU-1234', name: 'NVIDIA H200', source: 'nvidia-smi' };
const noGpu: Partial<GpuBackendProbes> = {
  webgpu: () => Promise.resolve({ ok: false, reason: 'the webgpu package does not load (GLIBCXX_3.4.32 not found)' }),
  headlessgl: () => Promise.resolve({ ok: false, reason: 'the gl package is not installed' }),
};

describe('GPU backend selection', () => {
  const log = fakeContext().log;

  it('GPU slot where WebGPU and headless-gl fail: best CPU backend, fallback reported with every reason', async () => {
    const s = await selectGpuBackend({ gpu: H200, forced: 'auto', log, probes: noGpu });
    assert.equal(s.backend, 'webasm');
    assert.equal(s.requested, 'webgpu');
    assert.equal(s.fallback, true);
    assert.match(s.fallbackReason!, /webgpu: .*GLIBCXX/);
    assert.match(s.fallbackReason!, /headlessgl: /);
    assert.equal(s.device, null);
  });

  it('GPU slot with the real probes: a CPU backend is never labelled GPU', async function () {
    this.timeout(60_000);
    const s = await selectGpuBackend({ gpu: H200, forced: 'auto', log, probeTimeoutMs: 3000 });
    if (isGpuBackend(s.backend)) {
      assert.ok(s.device, 'a GPU backend names its adapter');
    } else {
      // This machine (no GPU, old glibc): WebGPU must fail cleanly and be reported.
      assert.equal(s.fallback, true);
      assert.match(s.fallbackReason!, /webgpu: /);
      assert.equal(s.device, null);
    }
    const nav = (globalThis as { navigator?: { gpu?: unknown } }).navigator;
    assert.ok(!nav?.gpu || isGpuBackend(s.backend), 'a failed probe leaves no navigator.gpu behind');
  });

  it('a headless-gl context is taken when WebGPU fails', async () => {
    const s = await selectGpuBackend({ gpu: H200, forced: 'auto', log, probes: { ...noGpu, headlessgl: () => Promise.resolve({ ok: true, device: 'headless-gl' }) } });
    assert.equal(s.backend, 'headlessgl');
    assert.equal(s.fallback, true, 'webgpu was asked for');
    assert.match(s.fallbackReason!, /webgpu: /);
  });

  it('a declared GPU runs on the CPU backend and says so', async () => {
    let probed = false;
    const s = await selectGpuBackend({
      gpu: { gpuId: 'gpu0', name: 'Tesla K80', source: 'declared' },
      forced: 'auto',
      log,
      probes: { webgpu: () => ((probed = true), Promise.resolve({ ok: true, device: 'x' })) },
    });
    assert.equal(probed, false);
    assert.equal(s.backend, 'webasm');
    assert.equal(s.fallback, true);
    assert.match(s.fallbackReason!, /declared/);
  });

  it('CPU slot: webasm, no fallback; forced backends are honoured or reported', async () => {
    const cpu = await selectGpuBackend({ gpu: null, forced: 'auto', log, probes: noGpu });
    assert.deepEqual([cpu.backend, cpu.requested, cpu.fallback, cpu.fallbackReason], ['webasm', 'webasm', false, null]);
    const forcedCpu = await selectGpuBackend({ gpu: H200, forced: 'cpu', log, probes: noGpu });
    assert.deepEqual([forcedCpu.backend, forcedCpu.fallback], ['cpu', false]);
    const forcedWebgpu = await selectGpuBackend({ gpu: null, forced: 'webgpu', log, probes: noGpu });
    assert.deepEqual([forcedWebgpu.backend, forcedWebgpu.requested, forcedWebgpu.fallback], ['webasm', 'webgpu', true]);
    const noWasm = await selectGpuBackend({ gpu: null, forced: 'auto', log, probes: { webasm: () => Promise.resolve({ ok: false, reason: 'no SIMD' }) } });
    assert.deepEqual([noWasm.backend, noWasm.fallback], ['cpu', true]);
    assert.match(noWasm.fallbackReason!, /no SIMD/);
  });

  it('probes once per process and shares the thread budget among GPU-bolt tasks', async () => {
    let probes = 0;
    const backends = new WorkerGpuBackends(H200, 8, log, {
      ...noGpu,
      webgpu: () => (probes++, Promise.resolve({ ok: false, reason: 'no' })),
    });
    const handles = await Promise.all([backends.acquire('auto'), backends.acquire('auto'), backends.acquire('auto')]);
    assert.equal(probes, 1);
    for (const h of handles) {
      assert.equal(h.backend, 'webasm');
      assert.equal(h.cpuThreads(), 2);
    }
  });
});
