/**
 * What one node-collector round costs a supervisor (seed 003's collectors run
 * on every node, so their cost is paid everywhere): rounds over 0, 4 and 16
 * worker processes (idle node processes standing in for workers), without
 * GPUs and with an nvidia-smi stand-in — a script on PATH printing a recorded
 * 8 × H100 answer, so the process spawn is measured but not the driver's own
 * NVML time, which only a GPU machine can show. Reports wall and CPU time per
 * round, and the CPU share at the default period (supervisor.collector.period.secs = 5).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GpuInfo } from '../common/resources.js';
import { NodeCollector, osSources } from '../supervisor/node-collector.js';
import { USAGE_RECORDINGS } from '../test/fixtures/nvidia-smi-usage.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { writeReport, type Row } from './support/results.js';

const DEFAULT_PERIOD_MS = 5000;

function idleProcesses(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }));
}

function h100s(): GpuInfo[] {
  const rec = USAGE_RECORDINGS.h100x8!.stdout.trim().split('\n');
  return rec.map((line, i) => ({
    id: line.split(',')[0]!.trim(),
    name: 'NVIDIA H100 80GB HBM3',
    smCount: 132,
    coresPerSm: 128,
    clockMHz: 1980,
    memoryMB: 81559,
    computeCapability: '9.0',
    slots: 4,
    source: 'nvidia-smi',
    index: i,
  }));
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

export async function run(args: BenchArgs): Promise<void> {
  const rounds = args.quick ? 20 : 200;
  const workerCounts = [0, 4, 16];
  const variants: { gpus: 'none' | 'nvidia-smi stand-in' }[] = [{ gpus: 'none' }, { gpus: 'nvidia-smi stand-in' }];
  const bin = mkdtempSync(join(tmpdir(), 'hstorm-smi-'));
  const script = join(bin, 'nvidia-smi');
  writeFileSync(script, `#!/bin/sh\ncat <<'EOF'\n${USAGE_RECORDINGS.h100x8!.stdout}EOF\n`);
  chmodSync(script, 0o755);
  const path = process.env.PATH;
  const progress = new BenchProgress('node-collector', workerCounts.length * variants.length, !args.json);
  const rows: Row[] = [];
  try {
    for (const v of variants) {
      process.env.PATH = v.gpus === 'none' ? path : `${bin}:${path ?? ''}`;
      for (const k of workerCounts) {
        progress.step(`${k} workers, GPUs: ${v.gpus}`);
        const procs = idleProcesses(k);
        try {
          const workers = procs.map((p, i) => ({ port: 6700 + i, topologyId: 'bench', pid: p.pid ?? -1 }));
          const collector = new NodeCollector(v.gpus === 'none' ? [] : h100s(), osSources);
          await collector.collect(workers); // warm-up: the first round primes pidusage and the CPU baseline
          const wall: number[] = [];
          const cpu: number[] = [];
          for (let r = 0; r < rounds; r++) {
            const c0 = process.cpuUsage();
            const t0 = performance.now();
            const round = await collector.collect(workers);
            wall.push(performance.now() - t0);
            const c = process.cpuUsage(c0);
            cpu.push((c.user + c.system) / 1000);
            if (v.gpus !== 'none' && round.gpus.some((g) => g.utilisation === null)) throw new Error(`the nvidia-smi stand-in was not read: ${round.notes.join('; ')}`);
            if (round.workers.some((w) => w.rssMB === null)) throw new Error('a worker stand-in was not sampled');
          }
          wall.sort((a, b) => a - b);
          const meanWall = wall.reduce((a, b) => a + b, 0) / wall.length;
          const meanCpu = cpu.reduce((a, b) => a + b, 0) / cpu.length;
          rows.push({
            gpus: v.gpus,
            workers: k,
            rounds,
            wall_mean_ms: round3(meanWall),
            wall_p50_ms: round3(percentile(wall, 0.5)),
            wall_p99_ms: round3(percentile(wall, 0.99)),
            cpu_mean_ms: round3(meanCpu),
            cpu_pct_of_core_at_5s: Math.round((meanCpu / DEFAULT_PERIOD_MS) * 100 * 10_000) / 10_000,
          });
        } finally {
          for (const p of procs) p.kill('SIGKILL');
        }
      }
    }
  } finally {
    process.env.PATH = path;
    rmSync(bin, { recursive: true, force: true });
    progress.stop();
  }
  const at = (gpus: string, k: number) => rows.find((r) => r.gpus === gpus && r.workers === k)!;
  const ratios = {
    'round wall time, 16 workers vs none (no GPU)': round3(Number(at('none', 16).wall_mean_ms) / Number(at('none', 0).wall_mean_ms)),
    'round wall time with nvidia-smi vs without (4 workers)': round3(Number(at('nvidia-smi stand-in', 4).wall_mean_ms) / Number(at('none', 4).wall_mean_ms)),
    'worst CPU use at the default 5 s period (% of one core)': Math.max(...rows.map((r) => Number(r.cpu_pct_of_core_at_5s))),
  };
  const dir = await writeReport({
    experiment: 'node-collector',
    title: 'Node collector: cost of one collection round',
    command: `npm run bench -- node-collector${args.quick ? ' --quick' : ''}`,
    rows,
    plot: {
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'workers', type: 'ordinal', title: 'worker processes sampled' },
        xOffset: { field: 'gpus' },
        y: { field: 'wall_mean_ms', type: 'quantitative', title: 'wall time per round (ms)' },
        color: { field: 'gpus', type: 'nominal', title: 'GPUs' },
      },
    },
    backends: {},
    ratios,
    notes: [
      'Workers are idle node processes; the collector reads each one through pidusage (/proc/<pid>/stat and status).',
      'The nvidia-smi stand-in is a shell script printing a recorded 8 × H100 answer: the spawn and parse are measured, the driver’s own query time is not (measure on a GPU machine).',
      'CPU time is this process’s user + system time per round; a spawned nvidia-smi’s own CPU is not in it.',
    ],
    quick: args.quick,
  });
  if (args.json) process.stdout.write(`${JSON.stringify({ rows, ratios })}\n`);
  else {
    for (const r of rows) process.stdout.write(`${JSON.stringify(r)}\n`);
    for (const [k, v] of Object.entries(ratios)) process.stdout.write(`${k}: ${v}\n`);
    process.stdout.write(`written to ${dir}\n`);
  }
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
