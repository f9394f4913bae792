/**
 * The WebGPU path for real, on every commit: gpu.js kernels on a WebGPU
 * adapter through Dawn, in real worker processes. Where there is no GPU the
 * adapter is Mesa's software Vulkan driver (lavapipe): it must run the
 * kernels when `topology.gpu.backend=webgpu` asks for it, be labelled a
 * software adapter everywhere, and never become a GPU slot.
 *
 * The processes run under the node scripts/webgpu-runtime.sh prepares (Dawn
 * needs glibc ≥ 2.38); without it these tests are pending, with the reason.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunSummary } from '../../cli/run-summary.js';
import type { ComponentGpuSummary } from '../../common/metrics-rollup.js';
import { PACKAGE_ROOT } from '../helpers/cluster-processes.js';
import { verifiedIds } from '../helpers/matmul-output.js';
import { requireWebGpu } from '../helpers/webgpu-runtime.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'hstorm.js');

/** `hstorm local … --json` under `node`; the summary it prints. */
function runLocal(node: string, module: string, durationSec: number, conf: Record<string, string | number>): RunSummary {
  const args = [BIN, 'local', module, '--duration', String(durationSec), '--json', ...Object.entries(conf).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const r = spawnSync(node, args, { cwd: PACKAGE_ROOT, encoding: 'utf8', timeout: (durationSec + 90) * 1000 });
  assert.equal(r.status, 0, `hstorm local ${module} failed (${r.status ?? r.signal}):\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as RunSummary;
}

function gpuOf(s: RunSummary, component: string): ComponentGpuSummary {
  const g = s.components[component]?.gpu;
  assert.ok(g, `${component} reports no GPU metrics`);
  return g;
}

/** Ran on WebGPU, on this machine's adapter, labelled for what it is. */
function assertOnWebGpu(g: ComponentGpuSummary): void {
  assert.deepEqual(g.backends, ['webgpu'], `ran on ${g.backends.join(', ')}: ${g.fallbackReasons.join('; ')}`);
  assert.equal(g.fallback, false);
  assert.equal(g.adapters.length, 1);
  const a = g.adapters[0]!;
  assert.equal(g.onGpu, true);
  assert.equal(g.onHardwareGpu, !a.software);
  assert.equal(g.ran[0], a.software ? `webgpu (software adapter: ${a.device})` : `webgpu (${a.device})`);
  assert.ok(g.launches > 0 && g.kernelMs.count > 0, 'kernel time per launch is reported');
  assert.ok(g.inFlightMs.count > 0 && g.inFlightMs.p50 > 0, 'time in flight per tuple is reported');
}

describe('WebGPU kernels (Dawn; a software adapter where there is no GPU)', function () {
  this.timeout(180_000);
  let node: string;
  let dir: string;
  before(function () {
    this.timeout(600_000); // the first run may download and unpack the runtime
    node = requireWebGpu(this);
    dir = mkdtempSync(join(tmpdir(), 'hstorm-webgpu-'));
  });
  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('builds and runs kernels on the adapter with no fallback; products match plain JS; a software adapter is no GPU slot', () => {
    const r = spawnSync(node, [join(PACKAGE_ROOT, 'dist/test/fixtures/webgpu-kernel-check.js')], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      handle: { backend: string; fallback: boolean; adapter: { software: boolean; device: string; identityVerified: boolean } };
      metrics: { backend: string; backendsRan: string[]; fallback: boolean; launches: number; kernelMs: { count: number }; deviceStats: { devices: number; lost: number; errors: number } };
      maxRelErr: number;
      onGpuSlot: { backend: string; fallback: boolean; fallbackReason: string };
      discovery: { gpus: number; notes: string[] };
    };
    assert.equal(out.handle.backend, 'webgpu');
    assert.equal(out.handle.fallback, false);
    assert.deepEqual([out.metrics.backend, out.metrics.backendsRan, out.metrics.fallback, out.metrics.launches], ['webgpu', ['webgpu'], false, 3]);
    assert.ok(out.metrics.kernelMs.count >= 2, 'launches after the compiling first one are timed');
    assert.deepEqual([out.metrics.deviceStats.devices, out.metrics.deviceStats.lost, out.metrics.deviceStats.errors], [1, 0, 0]);
    assert.ok(out.maxRelErr < 1e-4, `WebGPU products differ from plain JS by ${out.maxRelErr}`);
    if (out.handle.adapter.software) {
      assert.notEqual(out.onGpuSlot.backend, 'webgpu', 'a software adapter ran a GPU slot without being asked to');
      assert.match(out.onGpuSlot.fallbackReason, /software one .*not a GPU; set topology\.gpu\.backend=webgpu/);
      assert.equal(out.discovery.gpus, 0, 'discovery offered a software adapter as a GPU');
      assert.match(out.discovery.notes.join('\n'), /software/);
    }
  });

  it('hstorm local examples/matmul -c topology.gpu.backend=webgpu: every product verified, nothing lost, labelled', () => {
    const output = join(dir, 'matmul.csv');
    const s = runLocal(node, 'examples/matmul', 6, { 'topology.gpu.backend': 'webgpu', 'matmul.dim': 64, 'matmul.messages': 120, 'matmul.output': output });
    assert.equal(s.acked, 120);
    assert.equal(s.failed, 0);
    assert.equal(verifiedIds(output).size, 120);
    const g = gpuOf(s, 'dealer');
    assertOnWebGpu(g);
    assert.equal(g.devicesLost + g.deviceErrors + g.failedLaunches, 0);
    assert.ok(s.components.dealer!.capacity > 0, 'capacity counts the kernel busy time');
  });

  it('hybrid-matmul with the GPU side on WebGPU: both sides verified, the CPU side on webasm', () => {
    const output = join(dir, 'hybrid.csv');
    const s = runLocal(node, 'examples/hybrid-matmul', 6, {
      'hybrid.gpu.backend': 'webgpu',
      'matmul.dim': 32,
      'matmul.messages': 120,
      'matmul.output': output,
      'hstorm.split.window.ms': 500,
    });
    assert.equal(s.acked, 120);
    assert.equal(s.failed, 0);
    assert.equal(verifiedIds(output).size, 120);
    assert.ok(s.components['cpu-dealer']!.executed > 0 && s.components['gpu-dealer']!.executed > 0, 'both sides of the split got tuples');
    assertOnWebGpu(gpuOf(s, 'gpu-dealer'));
    assert.deepEqual(gpuOf(s, 'cpu-dealer').backends, ['webasm']);
  });

  it('sliding-covariance with the GPU windowed bolt on WebGPU: one launch per window, every window verified, the CPU one on webasm', () => {
    const output = join(dir, 'covariance.jsonl');
    const s = runLocal(node, 'examples/sliding-covariance', 8, { 'covariance.gpu.backend': 'webgpu', 'covariance.readings': 1600, 'covariance.output': output });
    const lines = readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { verified: boolean });
    assert.equal(lines.length, 100);
    assert.ok(lines.every((l) => l.verified), 'every window equals the float64 reference');
    const g = gpuOf(s, 'covariance-gpu');
    assertOnWebGpu(g);
    assert.equal(g.launches, 100, 'one launch per window');
    assert.deepEqual(gpuOf(s, 'covariance-cpu').backends, ['webasm']);
  });

  it('a lost device: the kernel is rebuilt on a fresh device, and after repeated losses moves to the CPU, labelled; nothing lost', () => {
    const rebuilt = join(dir, 'rebuilt.csv');
    const once = runLocal(node, 'dist/test/fixtures/device-lost-topology.js', 8, { 'topology.gpu.backend': 'webgpu', 'matmul.messages': 200, 'matmul.output': rebuilt, 'fault.lose.every': 80 });
    assert.equal(once.acked, 200);
    assert.equal(verifiedIds(rebuilt).size, 200, 'every message verified despite the lost devices');
    const g1 = gpuOf(once, 'dealer');
    assert.ok(g1.devicesLost >= 1, 'the loss is counted');
    assert.deepEqual(g1.backends, ['webgpu'], 'rebuilt on a fresh device, still on WebGPU');
    assert.equal(g1.fallback, false);

    const moved = join(dir, 'moved.csv');
    const often = runLocal(node, 'dist/test/fixtures/device-lost-topology.js', 10, { 'topology.gpu.backend': 'webgpu', 'matmul.messages': 400, 'matmul.output': moved, 'fault.lose.every': 20 });
    assert.equal(often.acked, 400);
    assert.equal(verifiedIds(moved).size, 400, 'every message verified despite the lost devices');
    const g2 = gpuOf(often, 'dealer');
    assert.ok(g2.devicesLost >= 4, `lost ${g2.devicesLost} devices`);
    assert.deepEqual(g2.backends, ['webgpu', 'webasm']);
    assert.equal(g2.fallback, true);
    assert.match(g2.fallbackReasons.join('; '), /device was lost 4 times .*rebuilt on webasm/);
  });
});
