import assert from 'node:assert/strict';
import type { GpuInfo } from '../../../common/resources.js';
import { DECLARED_NO_USAGE, NodeCollector, WEBGPU_NO_USAGE, type NodeSources, type ProcessUsage } from '../../../supervisor/node-collector.js';
import { parseGpuUsageCsv, queryGpuUsage, usageArgs } from '../../../supervisor/nvidia-smi-usage.js';
import type { ExecResult } from '../../../supervisor/nvidia-smi.js';
import { DRIVER_NOT_LOADED, USAGE_RECORDINGS } from '../../fixtures/nvidia-smi-usage.js';

const MiB = 2 ** 20;

function gpu(id: string, source: GpuInfo['source'], memoryMB = 16_000): GpuInfo {
  return { id, name: id, smCount: 40, coresPerSm: 64, clockMHz: 1500, memoryMB, computeCapability: '7.5', slots: 2, source };
}

/** CPU times for `cores` cores, each with `busy` and `idle` ms so far. */
function cpuList(cores: number, busy: number, idle: number) {
  return Array.from({ length: cores }, () => ({ times: { user: busy, nice: 0, sys: 0, irq: 0, idle } }));
}

function sources(over: Partial<NodeSources> & { cpuSeq?: ReturnType<typeof cpuList>[] } = {}): NodeSources {
  const seq = over.cpuSeq ?? [cpuList(2, 0, 0)];
  let i = 0;
  let calls = 0;
  return {
    cpus: () => seq[Math.min(i, seq.length - 1)]!,
    memory: () => ({ totalBytes: 8192 * MiB, availableBytes: 2048 * MiB }),
    load1: () => 0.5,
    gpuUsage: () => Promise.resolve({ ok: false, why: 'nvidia-smi is not installed (not on PATH)' }),
    processes: (pids) => Promise.resolve(new Map<number, ProcessUsage>(pids.map((p) => [p, { cpu: 0.25, rssBytes: 300 * MiB }]))),
    now: () => 1_000 + calls++,
    ...over,
    // advance the CPU sequence once per round (collect reads cpus() twice: times, then the core count)
    ...(over.cpuSeq ? { cpus: () => seq[Math.min(Math.floor(i++ / 2), seq.length - 1)]! } : {}),
  };
}

describe('supervisor: node collector', () => {
  describe('nvidia-smi usage output, several drivers', () => {
    it('asks for utilisation and memory, keyed by uuid', () => {
      assert.deepEqual(usageArgs(), ['--query-gpu=uuid,utilization.gpu,memory.used,memory.total', '--format=csv,noheader,nounits']);
    });

    it('550: eight loaded H100s', () => {
      const r = parseGpuUsageCsv(USAGE_RECORDINGS.h100x8!.stdout);
      assert.equal(r.rows.length, 8);
      assert.deepEqual(r.warnings, []);
      assert.deepEqual(r.rows[0], { uuid: 'GPU-5f3e1b2a-9c4d-4e8f-a1b2-c3d4e5f60718', utilisation: 0.97, memoryUsedMB: 71234, memoryTotalMB: 81559, why: null });
      assert.equal(r.rows[3]!.utilisation, 0, '0 % is an answer, not a missing value');
      assert.equal(r.rows[6]!.utilisation, 1);
    });

    it('535: a MIG-enabled A100 has no utilisation, and says why; the T4 beside it does', () => {
      const r = parseGpuUsageCsv(USAGE_RECORDINGS.a100Mig!.stdout);
      assert.equal(r.rows[0]!.utilisation, null);
      assert.equal(r.rows[0]!.memoryUsedMB, 13);
      assert.match(r.rows[0]!.why!, /utilization\.gpu \[N\/A\]/);
      assert.deepEqual(r.rows[1], { uuid: 'GPU-9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4', utilisation: 0.41, memoryUsedMB: 3210, memoryTotalMB: 15360, why: null });
    });

    it('470 and 390: idle and desktop boards', () => {
      assert.deepEqual(parseGpuUsageCsv(USAGE_RECORDINGS.t4Idle!.stdout).rows[0], {
        uuid: 'GPU-9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4',
        utilisation: 0,
        memoryUsedMB: 0,
        memoryTotalMB: 15109,
        why: null,
      });
      const r = parseGpuUsageCsv(USAGE_RECORDINGS.geforce390!.stdout);
      assert.deepEqual(r.rows.map((x) => [x.utilisation, x.memoryUsedMB, x.memoryTotalMB]), [[0.23, 1345, 6078], [0.07, 301, 4043]]);
    });

    it('340: a legacy GeForce reports [Not Supported] for utilisation but still its memory', () => {
      const [row] = parseGpuUsageCsv(USAGE_RECORDINGS.geforce340!.stdout).rows;
      assert.equal(row!.utilisation, null);
      assert.equal(row!.memoryUsedMB, 301);
      assert.match(row!.why!, /\[Not Supported\]/);
    });

    it('a lost GPU: the readable rows are kept despite exit 15, the error line is a warning', async () => {
      const rec = USAGE_RECORDINGS.gpuLost!;
      const q = await queryGpuUsage(() => Promise.resolve<ExecResult>({ code: rec.exitCode, stdout: rec.stdout, stderr: '' }));
      assert.ok(q.ok);
      assert.equal(q.rows.length, 1);
      assert.equal(q.rows[0]!.utilisation, 0.64);
      assert.match(q.warnings[0]!, /Unable to determine the device handle/);
    });

    it('a driver that is not loaded, or no nvidia-smi: a reason, no rows', async () => {
      const q = await queryGpuUsage(() => Promise.resolve<ExecResult>({ code: 9, stdout: DRIVER_NOT_LOADED, stderr: '' }));
      assert.deepEqual(q, { ok: false, why: `nvidia-smi failed (exit 9): ${DRIVER_NOT_LOADED.trim()}` });
      const missing = await queryGpuUsage(() => Promise.resolve<ExecResult>({ code: null, stdout: '', stderr: '', error: 'nvidia-smi is not installed (not on PATH)' }));
      assert.deepEqual(missing, { ok: false, why: 'nvidia-smi is not installed (not on PATH)' });
    });
  });

  describe('a collection round', () => {
    it('computes CPU use between rounds, memory, and worker RSS and CPU', async () => {
      // Round 1 at busy 100 / idle 100 per core; round 2 at busy 175 / idle 125: 75 busy of 100 ms → 0.75.
      const c = new NodeCollector([], sources({ cpuSeq: [cpuList(2, 100, 100), cpuList(2, 175, 125)] }));
      const first = await c.collect([{ port: 6700, topologyId: 't-1', pid: 4242 }]);
      assert.equal(first.cpu.utilisation, null, 'no CPU figure before a second round');
      assert.equal(first.cpu.cores, 2);
      assert.deepEqual(first.memory, { totalMB: 8192, usedMB: 6144, availableMB: 2048 });
      assert.deepEqual(first.workers, [{ port: 6700, topologyId: 't-1', pid: 4242, rssMB: 300, cpu: 0.25 }]);
      const second = await c.collect([]);
      assert.equal(second.cpu.utilisation, 0.75);
      assert.deepEqual(second.workers, []);
      assert.equal(c.latest(), second);
      assert.ok(second.collectMs >= 0);
    });

    it('a worker that exited between the look and the sample reads null', async () => {
      const c = new NodeCollector([], sources({ processes: () => Promise.resolve(new Map()) }));
      const r = await c.collect([{ port: 6701, topologyId: 't', pid: 99999 }]);
      assert.deepEqual(r.workers, [{ port: 6701, topologyId: 't', pid: 99999, rssMB: null, cpu: null }]);
    });

    it('GPU figures from nvidia-smi by uuid; WebGPU and declared GPUs have none and say why', async () => {
      const rec = USAGE_RECORDINGS.a100Mig!;
      const gpus = [gpu('GPU-9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4', 'nvidia-smi', 15360), gpu('GPU-not-listed', 'nvidia-smi'), gpu('llvmpipe', 'webgpu'), gpu('gtx1060', 'declared', 6144)];
      let asked = 0;
      const c = new NodeCollector(
        gpus,
        sources({
          gpuUsage: () => {
            asked++;
            return queryGpuUsage(() => Promise.resolve({ code: 0, stdout: rec.stdout, stderr: '' }));
          },
        }),
      );
      const r = await c.collect([]);
      assert.equal(asked, 1, 'one nvidia-smi call per round for all GPUs');
      assert.deepEqual(r.gpus, [
        { id: 'GPU-9a8b7c6d-5e4f-3a2b-1c0d-e9f8a7b6c5d4', source: 'nvidia-smi', utilisation: 0.41, memoryUsedMB: 3210, memoryTotalMB: 15360, why: null },
        { id: 'GPU-not-listed', source: 'nvidia-smi', utilisation: null, memoryUsedMB: null, memoryTotalMB: 16000, why: 'nvidia-smi did not list this GPU this round' },
        { id: 'llvmpipe', source: 'webgpu', utilisation: null, memoryUsedMB: null, memoryTotalMB: null, why: WEBGPU_NO_USAGE },
        { id: 'gtx1060', source: 'declared', utilisation: null, memoryUsedMB: null, memoryTotalMB: 6144, why: DECLARED_NO_USAGE },
      ]);
    });

    it('no nvidia-smi call without nvidia-smi GPUs; a failing one is a note, not an error', async () => {
      let asked = 0;
      const none = new NodeCollector([gpu('d', 'declared')], sources({ gpuUsage: () => (asked++, Promise.resolve({ ok: false, why: 'x' })) }));
      await none.collect([]);
      assert.equal(asked, 0);
      const failing = new NodeCollector([gpu('GPU-a', 'nvidia-smi')], sources());
      const r = await failing.collect([]);
      assert.deepEqual(r.notes, ['GPU usage unknown: nvidia-smi is not installed (not on PATH)']);
      assert.equal(r.gpus[0]!.why, 'nvidia-smi is not installed (not on PATH)');
    });
  });
});
