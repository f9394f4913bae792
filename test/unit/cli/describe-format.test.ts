import assert from 'node:assert/strict';
import { formatDetail } from '../../../cli/describe-format.js';
import type { ComponentStats, TopologyDetail } from '../../../nimbus/views.js';

function stats(kind: ComponentStats['kind'], extra: Partial<ComponentStats> = {}): ComponentStats {
  return {
    kind,
    gpu: false,
    executors: 1,
    emitted: 0,
    transferred: 0,
    executed: 0,
    acked: 0,
    failed: 0,
    executeLatencyMs: null,
    completeLatencyMs: null,
    completeLatencyP50Ms: null,
    completeLatencyP99Ms: null,
    capacity: 0,
    backends: [],
    fallback: false,
    fallbackReasons: [],
    gpuKernels: null,
    split: null,
    ...extra,
  };
}

function detail(components: Record<string, ComponentStats>): TopologyDetail {
  return {
    id: 't-1-1',
    name: 't',
    status: 'active',
    launchTime: 0,
    uptimeSecs: 5,
    epoch: 1,
    scheduler: 'hetero',
    workersRequested: 1,
    code: { kind: 'path', path: '/x.js' },
    killWaitSecs: null,
    workers: [],
    components,
    unassigned: [],
    config: {},
  };
}

describe('describe output', () => {
  it('shows γ, δ and both latencies of a split spout', () => {
    const split = { gamma: 0.7912, delta: 0.8011, latCpuMs: 171.2, latGpuMs: 42.5, theta: 0.3, policy: 'latency', windows: 24, sentCpu: 40, sentGpu: 150, controller: true };
    const text = formatDetail(detail({ source: stats('spout', { split }), cpu: stats('bolt') }));
    assert.match(text, /adaptive split/);
    assert.match(text, /source\s+0\.791\s+0\.801\s+171\.2\s+42\.5\s+0\.30\s+latency\s+24\s+40\s+150/);
    assert.match(text, /γ=0\.791/);
    assert.doesNotMatch(text, /GPU bolts/);
  });

  it('says which backend a GPU bolt ran on, and when it fell back to a CPU backend', () => {
    const text = formatDetail(
      detail({
        onGpu: stats('bolt', { gpu: true, backends: ['webgpu'] }),
        fellBack: stats('bolt', { gpu: true, backends: ['webasm'], fallback: true, fallbackReasons: ['no Vulkan loader'] }),
        waiting: stats('bolt', { gpu: true }),
      }),
    );
    assert.match(text, /\nonGpu +webgpu /);
    assert.match(text, /fellBack: FELL BACK to a CPU backend: no Vulkan loader/);
    assert.match(text, /\nwaiting +no launch yet /);
    assert.match(text, /webasm \(fallback\)/);
    assert.doesNotMatch(text, /adaptive split/);
  });

  it('shows kernel time, time in flight, the adapter, a software adapter and an unverified board', () => {
    const lat = (p50: number, p99: number) => ({ count: 10, mean: p50, p50, p99, max: p99 });
    const adapter = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe (LLVM 15)', description: 'llvmpipe', software: true, identity: 'adapter "llvmpipe (LLVM 15)" (the only one)', identityVerified: true };
    const h100 = { ...adapter, vendor: 'nvidia', architecture: 'hopper', device: 'NVIDIA H100', software: false, identity: 'NVIDIA H100 (GPU GPU-1 assigned)', identityVerified: false };
    const kernels = (ran: string, a: typeof adapter) => ({
      backends: ['webgpu'], ran: [ran], adapters: [a], onGpu: true, onHardwareGpu: !a.software, fallback: false, fallbackReasons: [],
      launches: 12, failedLaunches: 1, kernelMs: lat(4.5, 9.25), inFlightMs: lat(20, 41), devicesLost: 1, deviceErrors: 2,
    });
    const text = formatDetail(
      detail({
        soft: stats('bolt', { gpu: true, backends: ['webgpu'], gpuKernels: kernels('webgpu (software adapter: llvmpipe (LLVM 15))', adapter) }),
        hard: stats('bolt', { gpu: true, backends: ['webgpu'], gpuKernels: kernels('webgpu (NVIDIA H100)', h100) }),
      }),
    );
    assert.match(text, /\nsoft +webgpu \(software adapter: llvmpipe \(LLVM 15\)\) +12 +1 +4\.50 +9\.25 +20\.0 +41\.0 +1\/2/);
    assert.match(text, /soft: runs on a software WebGPU adapter \(a CPU\)/);
    assert.match(text, /\nhard +webgpu \(NVIDIA H100\) /);
    assert.match(text, /hard: GPU identity not verified: NVIDIA H100 \(GPU GPU-1 assigned\)/);
    assert.doesNotMatch(text, /hard: runs on a software/);
  });
});
