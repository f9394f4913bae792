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
    assert.match(text, /onGpu: webgpu\n/);
    assert.match(text, /fellBack: webasm {2}FELL BACK to a CPU backend: no Vulkan loader/);
    assert.match(text, /waiting: not reported yet/);
    assert.match(text, /webasm \(fallback\)/);
    assert.doesNotMatch(text, /adaptive split/);
  });
});
