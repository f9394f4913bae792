import assert from 'node:assert/strict';
import { discoverGpus, fromWebGpu, type GpuDiscoveryConfig } from '../../../supervisor/gpu-discovery.js';
import { coresPerSmFor, lookupGpuModel, smCountFor } from '../../../common/gpu-sm-table.js';
import { gpuSlotLimit, mpsClientLimit } from '../../../common/gpu-slots.js';
import {
  NVIDIA_SMI_FIELDS,
  nvidiaSmiArgs,
  parseNvidiaSmiCsv,
  queryNvidiaSmi,
  rejectedField,
  type ExecResult,
} from '../../../supervisor/nvidia-smi.js';
import { parseProbeOutput, probeWebGpu } from '../../../supervisor/webgpu-probe.js';

// Recorded-style outputs of
//   nvidia-smi --query-gpu=uuid,name,memory.total,clocks.max.sm,compute_cap,pci.bus_id --format=csv,noheader,nounits
const H200_NODE = `GPU-5e0b3a1c-7f2d-4c9e-9a8b-1d2e3f4a5b6c, NVIDIA H200, 143771, 1980, 9.0, 00000000:18:00.0
GPU-0c7a9d42-11b3-4e8f-b6a2-8f3e2d1c0b9a, NVIDIA H200, 143771, 1980, 9.0, 00000000:2A:00.0
`;
const MIXED_NODE = `GPU-1f2e3d4c-5b6a-7980-a1b2-c3d4e5f60718, NVIDIA A100-SXM4-80GB, 81920, 1410, 8.0, 00000000:07:00.0
GPU-9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4, Tesla T4, 15360, 1590, 7.5, 00000000:00:1E.0
GPU-2b3c4d5e-6f70-8192-a3b4-c5d6e7f80912, NVIDIA GeForce GTX 1080 Ti, 11264, 1911, 6.1, 00000000:65:00.0
GPU-77aa88bb-99cc-4dd0-8ee1-ff2233445566, GRID V100-8Q, [N/A], [N/A], 7.0, 00000000:02:00.0
`;
// A 470-series driver: no compute_cap.
const OLD_DRIVER_REJECT = `Field "compute_cap" is not a valid field to query.

`;
const OLD_DRIVER_ROWS = `GPU-c0ffee00-1111-2222-3333-444455556666, GeForce GTX 970, 4043, 1455, 00000000:01:00.0
GPU-deadbeef-aaaa-bbbb-cccc-ddddeeeeffff, GeForce GTX 1060 6GB, 6078, 1911, 00000000:02:00.0
`;

const cfg = (over: Partial<GpuDiscoveryConfig> = {}): GpuDiscoveryConfig => ({
  'supervisor.gpu.discovery': 'auto',
  'supervisor.gpus': [],
  'supervisor.gpu.slots': 4,
  'supervisor.gpu.mps.max.clients': null,
  'supervisor.gpu.sm.counts': {},
  'supervisor.gpu.memory.mb': null,
  ...over,
});

/** An nvidia-smi stand-in that answers from a script and records the args it was given. */
function fakeSmi(answers: ExecResult[], calls: string[][] = []) {
  return (args: string[]): Promise<ExecResult> => {
    calls.push(args);
    const a = answers.shift();
    if (!a) throw new Error('nvidia-smi called more often than expected');
    return Promise.resolve(a);
  };
}

const noWebGpu = () => Promise.resolve({ ok: false as const, why: 'test: no adapter' });

describe('supervisor: GPU discovery', () => {
  describe('nvidia-smi output', () => {
    it('asks for exactly the fields DESIGN §4 names', () => {
      assert.deepEqual(nvidiaSmiArgs(NVIDIA_SMI_FIELDS), [
        '--query-gpu=uuid,name,memory.total,clocks.max.sm,compute_cap,pci.bus_id',
        '--format=csv,noheader,nounits',
      ]);
    });

    it('parses an H200 node', () => {
      const { rows, warnings } = parseNvidiaSmiCsv(H200_NODE, NVIDIA_SMI_FIELDS);
      assert.deepEqual(warnings, []);
      assert.deepEqual(rows[0], {
        index: 0,
        uuid: 'GPU-5e0b3a1c-7f2d-4c9e-9a8b-1d2e3f4a5b6c',
        name: 'NVIDIA H200',
        memoryMB: 143771,
        clockMHz: 1980,
        computeCapability: '9.0',
        pciBusId: '00000000:18:00.0',
      });
      assert.equal(rows[1]!.index, 1);
    });

    it('keeps names with spaces and dashes whole, and reads [N/A] as unknown', () => {
      const { rows } = parseNvidiaSmiCsv(MIXED_NODE, NVIDIA_SMI_FIELDS);
      assert.deepEqual(rows.map((r) => r.name), ['NVIDIA A100-SXM4-80GB', 'Tesla T4', 'NVIDIA GeForce GTX 1080 Ti', 'GRID V100-8Q']);
      assert.equal(rows[3]!.memoryMB, null);
      assert.equal(rows[3]!.clockMHz, null);
    });

    it('folds a comma inside a name back into the name and skips broken lines with a warning', () => {
      const { rows, warnings } = parseNvidiaSmiCsv(
        'GPU-1, Odd, Name, 1024, 1000, 7.5, 0000:01:00.0\nGPU-2, short line\n\n',
        NVIDIA_SMI_FIELDS,
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.name, 'Odd, Name');
      assert.equal(warnings.length, 1);
    });

    it("recognises an old driver's refusal of compute_cap", () => {
      assert.equal(rejectedField(OLD_DRIVER_REJECT), 'compute_cap');
      assert.equal(rejectedField(H200_NODE), null);
    });

    it('asks again without a rejected field', async () => {
      const calls: string[][] = [];
      const q = await queryNvidiaSmi(
        fakeSmi(
          [
            { code: 2, stdout: OLD_DRIVER_REJECT, stderr: '' },
            { code: 0, stdout: OLD_DRIVER_ROWS, stderr: '' },
          ],
          calls,
        ),
      );
      assert.equal(calls.length, 2);
      assert.equal(calls[1]![0], '--query-gpu=uuid,name,memory.total,clocks.max.sm,pci.bus_id');
      assert.ok(q.ok);
      assert.equal(q.rows[0]!.computeCapability, null);
      assert.equal(q.rows[1]!.pciBusId, '00000000:02:00.0');
    });

    it('reports a missing binary or a broken driver as a failure with why', async () => {
      const missing = await queryNvidiaSmi(fakeSmi([{ code: null, stdout: '', stderr: '', error: 'nvidia-smi is not installed (not on PATH)' }]));
      assert.deepEqual(missing, { ok: false, why: 'nvidia-smi is not installed (not on PATH)' });
      const broken = await queryNvidiaSmi(
        fakeSmi([{ code: 9, stdout: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", stderr: '' }]),
      );
      assert.ok(!broken.ok);
      assert.match(broken.why, /exit 9.*couldn't communicate/);
    });
  });

  describe('discoverGpus', () => {
    it('turns nvidia-smi rows into GpuInfo keyed by uuid, with table SMs and cores by capability', async () => {
      const d = await discoverGpus(cfg(), {
        nvidiaSmi: () => queryNvidiaSmi(fakeSmi([{ code: 0, stdout: H200_NODE, stderr: '' }])),
        webgpu: noWebGpu,
      });
      assert.equal(d.source, 'nvidia-smi');
      assert.deepEqual(d.gpus[0], {
        id: 'GPU-5e0b3a1c-7f2d-4c9e-9a8b-1d2e3f4a5b6c',
        name: 'NVIDIA H200',
        smCount: 132,
        coresPerSm: 128,
        clockMHz: 1980,
        memoryMB: 143771,
        computeCapability: '9.0',
        slots: 4,
        source: 'nvidia-smi',
        index: 0,
        pciBusId: '00000000:18:00.0',
      });
    });

    it('on an old driver, takes the compute capability from the model table and says so', async () => {
      const d = await discoverGpus(cfg({ 'supervisor.gpu.slots': 20 }), {
        nvidiaSmi: () =>
          queryNvidiaSmi(
            fakeSmi([
              { code: 2, stdout: OLD_DRIVER_REJECT, stderr: '' },
              { code: 0, stdout: OLD_DRIVER_ROWS, stderr: '' },
            ]),
          ),
        webgpu: noWebGpu,
      });
      assert.deepEqual(
        d.gpus.map((g) => [g.name, g.smCount, g.computeCapability, g.coresPerSm, g.slots]),
        [
          // 20 slots asked; Maxwell/Pascal are pre-Volta: MPS allows 16.
          ['GeForce GTX 970', 13, '5.2', 128, 16],
          ['GeForce GTX 1060 6GB', 10, '6.1', 128, 16],
        ],
      );
      assert.ok(d.notes.some((n) => /does not know "compute_cap"/.test(n)));
      assert.ok(d.notes.some((n) => /compute capability 5\.2 taken from the model table/.test(n)));
      assert.ok(d.notes.some((n) => /pre-Volta MPS limit is 16/.test(n)));
    });

    it('labels guesses: unknown model, unknown clock', async () => {
      const d = await discoverGpus(cfg(), {
        nvidiaSmi: () => Promise.resolve({ ok: true, fields: [...NVIDIA_SMI_FIELDS], notes: [], rows: parseNvidiaSmiCsv('GPU-x, Mystery GPU 9000, 1024, [N/A], 8.6, 0:0:0.0', NVIDIA_SMI_FIELDS).rows }),
        webgpu: noWebGpu,
      });
      const g = d.gpus[0]!;
      assert.equal(g.smCount, 1);
      assert.equal(g.clockMHz, 1000);
      assert.ok(d.notes.some((n) => /SM count unknown for "Mystery GPU 9000"/.test(n)));
      assert.ok(d.notes.some((n) => /max SM clock not reported; assuming 1000 MHz/.test(n)));
    });

    it('supervisor.gpu.sm.counts overrides the table', async () => {
      const d = await discoverGpus(cfg({ 'supervisor.gpu.sm.counts': { 'Mystery GPU 9000': 64 } }), {
        nvidiaSmi: () => Promise.resolve({ ok: true, fields: [...NVIDIA_SMI_FIELDS], notes: [], rows: parseNvidiaSmiCsv('GPU-x, Mystery GPU 9000, 1024, 1500, 8.6, 0:0:0.0', NVIDIA_SMI_FIELDS).rows }),
        webgpu: noWebGpu,
      });
      assert.equal(d.gpus[0]!.smCount, 64);
    });

    it('auto: no nvidia-smi, no WebGPU → the GPUs declared in config, labelled declared', async () => {
      const declared = [{ id: 'g0', name: 'GeForce GTX 1060', smCount: 10, clockMHz: 1708, memoryMB: 6144, computeCapability: '6.1' }];
      const d = await discoverGpus(cfg({ 'supervisor.gpus': declared }), {
        nvidiaSmi: () => Promise.resolve({ ok: false, why: 'nvidia-smi is not installed (not on PATH)' }),
        webgpu: noWebGpu,
      });
      assert.equal(d.source, 'declared');
      assert.deepEqual(d.gpus[0], { ...declared[0], coresPerSm: 128, slots: 4, source: 'declared', index: 0 });
      assert.deepEqual(d.notes.slice(0, 2), ['nvidia-smi is not installed (not on PATH)', 'WebGPU: test: no adapter']);
    });

    it('an explicit source is the only one tried; none turns discovery off', async () => {
      let webgpuTried = false;
      const d = await discoverGpus(cfg({ 'supervisor.gpu.discovery': 'nvidia-smi', 'supervisor.gpus': [{ id: 'g', name: 'x', smCount: 1, clockMHz: 1, memoryMB: 1, computeCapability: '7.0' }] }), {
        nvidiaSmi: () => Promise.resolve({ ok: false, why: 'nope' }),
        webgpu: () => {
          webgpuTried = true;
          return noWebGpu();
        },
      });
      assert.deepEqual([d.gpus, d.source, webgpuTried], [[], null, false]);
      const off = await discoverGpus(cfg({ 'supervisor.gpu.discovery': 'none' }));
      assert.deepEqual(off.gpus, []);
    });

    it('a WebGPU adapter: name from the adapter, SMs from the table when the name is known, the rest labelled', async () => {
      const d = await discoverGpus(cfg({ 'supervisor.gpu.discovery': 'webgpu' }), {
        nvidiaSmi: () => Promise.reject(new Error('not called')),
        webgpu: () => Promise.resolve({ ok: true, adapter: { vendor: 'nvidia', architecture: 'hopper', device: '', description: 'NVIDIA H200' } }),
      });
      assert.equal(d.source, 'webgpu');
      assert.deepEqual(
        [d.gpus[0]!.name, d.gpus[0]!.smCount, d.gpus[0]!.computeCapability, d.gpus[0]!.source],
        ['NVIDIA H200', 132, '9.0', 'webgpu'],
      );
      assert.ok(d.notes.some((n) => /WebGPU reports no SM count, clock or memory/.test(n)));
      const unknown = fromWebGpu({ vendor: 'amd', architecture: 'rdna3', device: '', description: '' }, cfg(), []);
      assert.equal(unknown.name, 'amd rdna3');
      assert.equal(unknown.computeCapability, 'unknown');
      // WebGPU gives no memory total: unknown (0, shared by slots only) unless supervisor.gpu.memory.mb says it.
      assert.equal(d.gpus[0]!.memoryMB, 0);
      assert.ok(d.notes.some((n) => /memory not reported \(0 = unknown/.test(n)));
      const notes: string[] = [];
      const told = fromWebGpu({ vendor: 'nvidia', architecture: 'hopper', device: '', description: 'NVIDIA H200' }, cfg({ 'supervisor.gpu.memory.mb': 141312 }), notes);
      assert.equal(told.memoryMB, 141312);
      assert.ok(notes.some((n) => /141312 MB from supervisor.gpu.memory.mb/.test(n)));
    });
  });

  describe('WebGPU probe', () => {
    it('reads the child result and refuses software adapters', () => {
      assert.deepEqual(parseProbeOutput('{"ok":true,"fallback":false,"adapter":{"vendor":"nvidia","architecture":"","device":"","description":"NVIDIA H200"}}\n').ok, true);
      const sw = parseProbeOutput('{"ok":true,"fallback":false,"adapter":{"vendor":"google","architecture":"swiftshader","device":"","description":"SwiftShader Device"}}');
      assert.ok(!sw.ok && /software/.test(sw.why));
      assert.ok(!parseProbeOutput('Segmentation fault').ok);
    });

    it('probes for real and comes back within its timeout, with an adapter or a reason', async function () {
      this.timeout(60_000);
      const t0 = Date.now();
      const r = await probeWebGpu(5_000);
      // The probe's own 5 s timeout must end it: 30 s (not 6) leaves a loaded machine room to start and kill the probe
      // process, and still fails a probe that waits on a hung adapter with no timeout of its own.
      assert.ok(Date.now() - t0 < 30_000, `the probe took ${Date.now() - t0} ms`);
      if (!r.ok) assert.ok(r.why.length > 0);
      else assert.ok(r.adapter.vendor || r.adapter.description);
    });
  });

  describe('slots and tables', () => {
    it('P ≤ 1 below compute capability 3.5; MPS limit 16 before Volta, 48 from Volta; config override', () => {
      assert.deepEqual(gpuSlotLimit('3.0', 4, null).slots, 1);
      assert.deepEqual(gpuSlotLimit('3.5', 4, null).slots, 4);
      assert.deepEqual(gpuSlotLimit('6.1', 20, null).slots, 16);
      assert.deepEqual(gpuSlotLimit('7.0', 64, null).slots, 48);
      assert.deepEqual(gpuSlotLimit('9.0', 64, 60).slots, 60);
      assert.deepEqual(gpuSlotLimit('9.0', 8, null), { slots: 8, limitedBy: null });
      assert.equal(mpsClientLimit('unknown', null), 16);
    });

    it('cores per SM follow cuda-samples _ConvertSMVer2Cores', () => {
      const cases: [string, number][] = [
        ['3.5', 192], ['3.7', 192], ['5.2', 128], ['6.0', 64], ['6.1', 128], ['6.2', 128], ['7.0', 64],
        ['7.5', 64], ['8.0', 64], ['8.6', 128], ['8.7', 128], ['8.9', 128], ['9.0', 128],
      ];
      for (const [cc, cores] of cases) assert.deepEqual(coresPerSmFor(cc), { cores, known: true }, cc);
      assert.equal(coresPerSmFor('10.0').known, false);
    });

    it('matches GPU names on whole tokens, longest first', () => {
      const sm = (n: string): number | undefined => smCountFor(n, {});
      assert.equal(sm('NVIDIA GeForce GTX 1080 Ti'), 28);
      assert.equal(sm('NVIDIA GeForce GTX 1080'), 20);
      assert.equal(sm('NVIDIA A10'), 72);
      assert.equal(sm('NVIDIA A100-SXM4-80GB'), 108);
      assert.equal(sm('NVIDIA H100 PCIe'), 114);
      assert.equal(sm('NVIDIA H100 80GB HBM3'), 132);
      assert.equal(sm('NVIDIA H200'), 132);
      assert.equal(sm('NVIDIA TITAN X (Pascal)'), 28);
      assert.equal(sm('GeForce GTX TITAN X'), 24);
      assert.equal(sm('Tesla V100-SXM2-16GB'), 80);
      assert.equal(sm('NVIDIA GeForce RTX 4090'), 128);
      assert.equal(sm('Radeon RX 7900'), undefined);
      assert.equal(lookupGpuModel('Tesla T4')?.computeCapability, '7.5');
      assert.equal(smCountFor('NVIDIA H200', { 'NVIDIA H200': 140 }), 140);
    });
  });
});
