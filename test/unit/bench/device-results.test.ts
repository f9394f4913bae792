/**
 * The summary scripts/device-gpu-checks.sh writes (summary.txt): a software
 * adapter is never called a GPU — not even when its report lost the flag —
 * rows that claim otherwise are problems, an NVIDIA GPU that WebGPU did not
 * reach is a problem, and a missing or broken result is one. The rows are
 * trimmed from a real run of scripts/device-bundle-proof.sh (bare Debian 12
 * root, lavapipe).
 */
import assert from 'node:assert/strict';
import { summarizeDeviceResults, type DeviceOutputs } from '../../../bench/support/device-results.js';

const LLVMPIPE = {
  vendor: 'mesa',
  architecture: 'software',
  device: 'llvmpipe (LLVM 15.0.6, 256 bits)',
  description: 'llvmpipe: Mesa 22.3.6 (LLVM 15.0.6) 0.0.1',
  software: true,
  identity: 'adapter "llvmpipe (LLVM 15.0.6, 256 bits)" (the only one)',
  identityVerified: true,
};
const H100 = {
  vendor: 'nvidia',
  architecture: '',
  device: 'NVIDIA H100 80GB HBM3',
  description: 'NVIDIA: 580.159.04',
  software: false,
  identity: 'NVIDIA H100 80GB HBM3 (PCI 00000000:41:00.0)',
  identityVerified: true,
};
const SW = 'webgpu (software adapter: llvmpipe (LLVM 15.0.6, 256 bits))';

/** The four results as the benchmarks print them with --json (progress lines before the last are ignored). */
function outputs(adapter: object | null, ran: { gpuBolt: string; short: string; hardwareGpu: boolean }, machine: string | null = null): DeviceOutputs {
  const line = (doc: object) => `some progress\n${JSON.stringify(doc)}\n`;
  return {
    json: {
      'gpu-bolt': line({
        bench: 'gpu-bolt',
        webgpu: adapter,
        webgpuUnavailable: adapter ? null : 'no WebGPU adapter',
        rows: [
          { n: 64, backend: 'js (CPU bolt)', hardwareGpu: false },
          { n: 64, backend: ran.gpuBolt, hardwareGpu: ran.hardwareGpu },
          { n: 64, backend: 'webasm', hardwareGpu: false },
        ],
      }),
      'bolt-latency': line({
        bench: 'bolt-latency',
        rows: [
          { n: 32, bolt: 'CPU bolt', backend: 'js', hardwareGpu: false },
          { n: 32, bolt: 'GPU bolt', backend: ran.gpuBolt, hardwareGpu: ran.hardwareGpu },
        ],
      }),
      'hybrid-vs-single': line({
        bench: 'hybrid-vs-single',
        rows: [
          { n: 32, topology: 'CPU-only', cpuDealer: 'webasm', gpuDealer: '' },
          { n: 32, topology: 'GPU-only', cpuDealer: '', gpuDealer: ran.short },
        ],
      }),
      windows: line({
        bench: 'windows',
        rows: [
          { part: 'a', variant: 'hand-written buffer bolt', backend: 'js' },
          { part: 'b', backend: ran.short, series: `GpuWindowedBolt (a launch per window) on ${ran.short === 'webgpu-sw' ? 'webgpu (software adapter, not a GPU)' : ran.short}` },
        ],
      }),
    },
    machine,
  };
}

const software = () => outputs(LLVMPIPE, { gpuBolt: SW, short: 'webgpu-sw', hardwareGpu: false }, '## nvidia-smi\nno nvidia-smi\n');

describe('device GPU checks summary', () => {
  it('names a software adapter as not a GPU and finds no problem in a correctly labelled run', () => {
    const s = summarizeDeviceResults(software());
    assert.deepEqual(s.problems, []);
    assert.equal(s.gpu, null);
    assert.equal(s.lines[0], `WebGPU adapter: ${SW} — a CPU behind WebGPU, NOT a GPU`);
    assert.ok(s.lines.includes('nvidia-smi: no NVIDIA GPU listed'));
    assert.ok(s.lines.includes(`gpu-bolt: 3 rows; ran on: js (CPU bolt), ${SW}, webasm`));
    assert.ok(s.lines.includes('hybrid-vs-single: 2 rows; ran on: webasm, webgpu-sw'));
    assert.match(s.lines.at(-1)!, /^verdict: the checks ran, on no GPU \(WebGPU on a software adapter/);
    assert.ok(!s.lines.some((l) => /— GPU|on a GPU \(/.test(l)));
  });

  it('calls a hardware adapter a GPU, with its board', () => {
    const s = summarizeDeviceResults(
      outputs(H100, { gpuBolt: 'webgpu (NVIDIA H100 80GB HBM3)', short: 'webgpu', hardwareGpu: true }, 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0b1c)\n'),
    );
    assert.deepEqual(s.problems, []);
    assert.equal(s.gpu, 'webgpu (NVIDIA H100 80GB HBM3)');
    assert.equal(s.lines[0], 'WebGPU adapter: webgpu (NVIDIA H100 80GB HBM3) — GPU, board NVIDIA H100 80GB HBM3 (PCI 00000000:41:00.0)');
    assert.equal(s.lines.at(-1), 'verdict: the GPU checks ran on a GPU (webgpu (NVIDIA H100 80GB HBM3))');
  });

  it('still calls llvmpipe software when its report lost the software flag', () => {
    const s = summarizeDeviceResults(outputs({ ...LLVMPIPE, software: false }, { gpuBolt: SW, short: 'webgpu-sw', hardwareGpu: false }));
    assert.equal(s.gpu, null);
    assert.match(s.lines[0]!, /NOT a GPU$/);
  });

  it('flags a software or CPU run that a row reports as a GPU', () => {
    const s = summarizeDeviceResults(outputs(LLVMPIPE, { gpuBolt: SW, short: 'webgpu', hardwareGpu: true }));
    assert.deepEqual(s.problems, [
      `gpu-bolt.json row 2 (${SW}): a software adapter or CPU backend flagged as a GPU`,
      `bolt-latency.json row 2 (${SW}): a software adapter or CPU backend flagged as a GPU`,
      'hybrid-vs-single.json row 2 (webgpu): labelled webgpu without "software", but no GPU adapter ran',
      'windows.json row 2 (webgpu / GpuWindowedBolt (a launch per window) on webgpu): labelled webgpu without "software", but no GPU adapter ran',
    ]);
    assert.match(s.lines.at(-1)!, /^verdict: FAILED — 4 problem/);
  });

  it('flags an NVIDIA GPU that nvidia-smi lists and WebGPU did not reach', () => {
    const o = software();
    o.machine = '## nvidia-smi\nGPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0b1c)\n';
    const s = summarizeDeviceResults(o);
    assert.deepEqual(s.problems, [
      'nvidia-smi lists NVIDIA H100 80GB HBM3 but WebGPU did not run on it: the NVIDIA Vulkan ICD was not used (see machine.txt)',
    ]);
  });

  it('flags missing, empty, truncated and misplaced results', () => {
    const o = software();
    o.json['gpu-bolt'] = null;
    o.json['bolt-latency'] = '\n';
    o.json['hybrid-vs-single'] = '{"bench":"hybrid-vs-single","rows":[';
    o.json.windows = o.json.windows!.replace('"bench":"windows"', '"bench":"transport"');
    const s = summarizeDeviceResults(o);
    assert.deepEqual(s.problems, [
      'gpu-bolt.json: missing',
      'bolt-latency.json: empty (the benchmark failed: see log.txt)',
      'hybrid-vs-single.json: not JSON: {"bench":"hybrid-vs-single","rows":[',
      'windows.json: holds "transport", not windows',
    ]);
    assert.equal(s.lines[0], 'WebGPU adapter: unknown (gpu-bolt.json missing)');
  });

  it('says why there was no adapter at all', () => {
    const s = summarizeDeviceResults(outputs(null, { gpuBolt: 'webasm', short: 'webasm', hardwareGpu: false }));
    assert.deepEqual(s.problems, []);
    assert.equal(s.lines[0], 'WebGPU adapter: none — no WebGPU adapter');
    assert.equal(s.lines.at(-1), 'verdict: the checks ran, on no GPU');
  });
});
