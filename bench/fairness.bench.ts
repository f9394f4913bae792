/**
 * `npm run bench -- fairness [--quick]` — HDRF between topologies against
 * H-Storm's `hetero` in submission order, on the HDRF paper's cluster (§3: 8
 * servers of 16 cores, 32 GB and two RTX 2080 Ti of 10 GB) simulated, with a
 * seeded stream of topology submissions of mixed demand modelled on its jobs:
 *   - cpu: word-count-like, executors of <2 cores, 2 GB> (the paper's JOB1 task);
 *   - gpu: matmul-like, GPU executors of <1 core, 4 GB, 4 GB GPU memory> (JOB2);
 *   - gpu-big: eight GPU executors of 8 GB GPU memory (nearly a whole card each).
 * Each policy is driven through nimbus's own placement round
 * (bench/support/fairness-sim.ts). Reported side by side: Jain's fairness
 * index of the active topologies' dominant shares over time, mean and max
 * wait until a topology runs, GPU memory utilisation (held by running
 * topologies, and held idle by topologies that cannot run), and the ratios.
 * The comparison of the HDRF paper's figures on our own workload.
 */
import { join } from 'node:path';
import { buildConfig, type Config } from '../common/config/index.js';
import type { SupervisorInfo } from '../common/resources.js';
import type { ComponentDef, TopologyDef } from '../common/topology-def.js';
import type { BenchArgs } from './main.js';
import { simulate, type SimJob, type SimPolicy, type SimResult } from './support/fairness-sim.js';
import { BenchProgress } from './support/progress.js';
import { writeReport, type Row } from './support/results.js';
import { round, writeCsv } from './support/run-series.js';
import { seededRandom } from '../common/seeded-random.js';

/** OT of the hdrf runs (the config default); --ot=S overrides it. */
const DEFAULT_OT_SECS = 300;
/** Mean seconds between submissions: a moderate and a heavy load; --gap=S runs that one load instead. */
const LOADS = [
  { load: 'moderate', gapSec: 75 },
  { load: 'heavy', gapSec: 45 },
];

function flag(args: BenchArgs, name: string, def: number): number {
  const a = args.rest.find((x) => x.startsWith(`--${name}=`));
  const v = a ? Number(a.slice(name.length + 3)) : def;
  if (!(v > 0)) throw new Error(`--${name} must be a number > 0, got ${a}`);
  return v;
}

/** The paper's cluster: 8 × (16 cores, 32 GB, 2 × RTX 2080 Ti 10 GB); 8 worker ports each, 4 GPU slots per card. */
function paperCluster(): SupervisorInfo[] {
  return Array.from({ length: 8 }, (_, i) => ({
    id: `s${i + 1}`,
    host: `s${i + 1}`,
    ports: Array.from({ length: 8 }, (_, k) => 6700 + k),
    cpus: 16,
    memoryMB: 32768,
    gpus: [0, 1].map((g) => ({
      id: `s${i + 1}-gpu${g}`,
      name: 'GeForce RTX 2080 Ti',
      smCount: 68,
      coresPerSm: 64,
      clockMHz: 1545,
      memoryMB: 10240,
      computeCapability: '7.5',
      slots: 4,
      source: 'declared' as const,
      index: g,
    })),
    startedAt: 0,
    heartbeatAt: 0,
    version: 1 as const,
  }));
}

function comp(id: string, parallelism: number, inputs: string[], cpuPct: number, memMB: number, gpuMB: number | null): ComponentDef {
  return {
    id,
    kind: inputs.length ? 'bolt' : 'spout',
    parallelism,
    streams: [{ id: 'default', fields: ['x'], direct: false }],
    inputs: inputs.map((c) => ({ component: c, stream: 'default', grouping: { type: 'shuffle' } })),
    gpu: gpuMB === null ? null : { memoryMB: gpuMB },
    config: { 'topology.component.cpu.pcore.percent': cpuPct, 'topology.component.resources.onheap.memory.mb': memMB },
  };
}

function job(id: string, kind: string, submitAt: number, workMs: number, components: ComponentDef[], workers: number, gpuWorkers: number, base: Config): SimJob {
  const def: TopologyDef = { components, config: {} };
  const config = buildConfig([{ ...base }, { 'topology.workers': workers, 'topology.gpu.workers': gpuWorkers, 'topology.acker.executors': 0 }], { allowUserKeys: true });
  return { id, kind, submitAt, workMs, def, config };
}

/** A Poisson stream of submissions: 45 % cpu, 45 % gpu, 10 % gpu-big; work 5–20 min. */
function workload(n: number, meanGapSec: number, seed: number, base: Config): SimJob[] {
  const r = seededRandom(seed);
  const jobs: SimJob[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += -Math.log(1 - r()) * meanGapSec * 1000;
    const workMs = (5 + r() * 15) * 60_000;
    const pick = r();
    const id = `t${String(i).padStart(3, '0')}`;
    if (pick < 0.45) {
      const bolts = 4 + Math.floor(r() * 7); // 4..10 executors of <0.5 core, 2 GB>
      const w = 2 + Math.floor(r() * 3);
      jobs.push(job(`${id}-cpu`, 'cpu', t, workMs, [comp('lines', 1, [], 25, 512, null), comp('count', bolts, ['lines'], 50, 2048, null)], w, 0, base));
    } else if (pick < 0.9) {
      const g = 1 + Math.floor(r() * 3); // 1..3 GPU executors of <1 core, 4 GB, 4 GB GPU memory>
      jobs.push(
        job(`${id}-gpu`, 'gpu', t, workMs, [comp('reader', 1, [], 100, 1024, null), comp('multiply', g, ['reader'], 100, 4096, 4096), comp('sink', 1, ['multiply'], 50, 512, null)], g + 1, g, base),
      );
    } else {
      jobs.push(
        job(`${id}-gpu-big`, 'gpu-big', t, workMs, [comp('reader', 1, [], 100, 1024, null), comp('multiply', 8, ['reader'], 100, 4096, 8192), comp('sink', 1, ['multiply'], 50, 512, null)], 9, 8, base),
      );
    }
  }
  return jobs;
}

interface Summary {
  load: string;
  policy: string;
  jainMean: number;
  jainSatisfactionMean: number;
  meanWaitSec: number;
  maxWaitSec: number;
  /** Submission to done: what a user waits for in all (over-committed nodes run slower). */
  meanTurnaroundSec: number;
  neverRan: number;
  gpuMemUtil: number;
  gpuMemIdle: number;
  gpuSlotsUtil: number;
  makespanSec: number;
  rounds: number;
  deadlock: string;
}

function timeMean(r: SimResult, pick: (s: SimResult['samples'][number]) => number | null): number {
  let num = 0;
  let den = 0;
  for (const s of r.samples) {
    const v = pick(s);
    if (v === null) continue;
    num += v * s.dt;
    den += s.dt;
  }
  return den ? num / den : 0;
}

function summarise(load: string, label: string, r: SimResult): Summary {
  const end = r.makespanMs;
  // A topology that never ran waited at least until the end: its wait is counted to there (a lower bound).
  const waits = r.jobs.map((j) => ((j.startedAt ?? end) - j.submitAt) / 1000);
  return {
    load,
    policy: label,
    jainMean: round(timeMean(r, (s) => s.jain), 3),
    jainSatisfactionMean: round(timeMean(r, (s) => s.jainSatisfaction), 3),
    meanWaitSec: round(waits.reduce((a, b) => a + b, 0) / waits.length, 1),
    maxWaitSec: round(Math.max(...waits), 1),
    meanTurnaroundSec: round(r.jobs.reduce((a, j) => a + ((j.doneAt ?? end) - j.submitAt), 0) / r.jobs.length / 1000, 1),
    neverRan: r.jobs.filter((j) => j.startedAt === null).length,
    gpuMemUtil: round(timeMean(r, (s) => s.gpuMemUsed), 3),
    gpuMemIdle: round(timeMean(r, (s) => s.gpuMemIdle), 3),
    gpuSlotsUtil: round(timeMean(r, (s) => s.gpuSlotsUsed), 3),
    makespanSec: round(end / 1000, 0),
    rounds: r.rounds,
    deadlock: r.deadlock ? `at ${round(r.deadlock.atMs / 1000, 0)} s, ${r.deadlock.stuck.length} topologies holding resources, none able to run` : 'none',
  };
}

export async function run(args: BenchArgs): Promise<void> {
  const n = args.quick ? 30 : 90;
  const gapFlag = args.rest.some((a) => a.startsWith('--gap='));
  const loads = gapFlag ? [{ load: 'given', gapSec: flag(args, 'gap', 60) }] : LOADS;
  const otSecs = flag(args, 'ot', DEFAULT_OT_SECS);
  const base = buildConfig([{}], { allowUserKeys: true });
  const cluster = paperCluster();
  const policies: SimPolicy[] = [
    { label: 'hetero, submission order', strategy: 'hetero', fairness: null },
    { label: `hdrf, OT ${otSecs} s`, strategy: 'hdrf', fairness: { mode: 'hdrf', reservationTimeoutMs: otSecs * 1000 } },
    { label: 'hdrf, no reservation', strategy: 'hdrf', fairness: { mode: 'hdrf', reservationTimeoutMs: 1e12 } },
  ];
  const bar = new BenchProgress('fairness', loads.length * policies.length, !args.json);
  const runs: { load: string; gapSec: number; policy: SimPolicy; result: SimResult; wallMs: number }[] = [];
  for (const { load, gapSec } of loads) {
    const jobs = workload(n, gapSec, 13, base);
    for (const policy of policies) {
      bar.step(`${load}: ${policy.label}`);
      const t0 = performance.now();
      runs.push({ load, gapSec, policy, result: simulate(cluster, jobs, policy), wallMs: performance.now() - t0 });
    }
  }
  bar.stop();

  const summaries = runs.map((x) => summarise(x.load, x.policy.label, x.result));
  const series: Row[] = [];
  const perKind: Row[] = [];
  for (const { load, policy, result } of runs) {
    for (const s of result.samples) {
      series.push({
        load,
        policy: policy.label,
        t: round(s.t, 1),
        dt: round(s.dt, 1),
        active: s.active,
        waiting: s.waiting,
        jain: s.jain === null ? null : round(s.jain, 4),
        jainSatisfaction: s.jainSatisfaction === null ? null : round(s.jainSatisfaction, 4),
        gpuMemUsed: round(s.gpuMemUsed, 4),
        gpuMemIdle: round(s.gpuMemIdle, 4),
      });
    }
    for (const kind of ['cpu', 'gpu', 'gpu-big']) {
      const js = result.jobs.filter((j) => j.kind === kind);
      const waits = js.map((j) => ((j.startedAt ?? result.makespanMs) - j.submitAt) / 1000);
      const turn = js.map((j) => ((j.doneAt ?? result.makespanMs) - j.submitAt) / 1000);
      perKind.push({
        load,
        policy: policy.label,
        kind,
        topologies: js.length,
        meanWaitSec: round(waits.reduce((a, b) => a + b, 0) / Math.max(1, waits.length), 1),
        maxWaitSec: round(Math.max(0, ...waits), 1),
        meanTurnaroundSec: round(turn.reduce((a, b) => a + b, 0) / Math.max(1, turn.length), 1),
        neverRan: js.filter((j) => j.startedAt === null).length,
      });
    }
  }

  const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : round(a / b, 3));
  const ratios: Record<string, number | string> = {};
  for (const { load } of loads) {
    const [h, f, nr] = summaries.filter((x) => x.load === load) as [Summary, Summary, Summary];
    ratios[`${load}: Jain's index of dominant shares, hdrf / hetero`] = ratio(f.jainMean, h.jainMean);
    ratios[`${load}: Jain's index of service (rate), hdrf / hetero`] = ratio(f.jainSatisfactionMean, h.jainSatisfactionMean);
    ratios[`${load}: mean wait, hdrf / hetero`] = ratio(f.meanWaitSec, h.meanWaitSec);
    ratios[`${load}: max wait, hdrf / hetero`] = ratio(f.maxWaitSec, h.maxWaitSec);
    ratios[`${load}: mean turnaround, hdrf / hetero`] = ratio(f.meanTurnaroundSec, h.meanTurnaroundSec);
    ratios[`${load}: GPU memory used by running topologies, hdrf / hetero`] = ratio(f.gpuMemUtil, h.gpuMemUtil);
    ratios[`${load}: max wait, hdrf with OT / hdrf without reservation`] = ratio(f.maxWaitSec, nr.maxWaitSec);
    ratios[`${load}: mean wait, hdrf with OT / hdrf without reservation`] = ratio(f.meanWaitSec, nr.meanWaitSec);
  }

  const dir = await writeReport({
    experiment: 'fairness',
    title: 'HDRF vs hetero in submission order: fairness, waits and GPU utilisation on a simulated cluster (the HDRF paper’s setup)',
    command: `npm run bench -- fairness${args.quick ? ' --quick' : ''}${args.rest.length ? ` ${args.rest.join(' ')}` : ''}`,
    rows: summaries as unknown as Row[],
    plot: {
      vconcat: [
        {
          data: { values: series },
          title: "Jain's index of the active topologies' dominant shares",
          width: 520,
          height: 120,
          mark: { type: 'line', interpolate: 'step-after' },
          encoding: {
            x: { field: 't', type: 'quantitative', title: 'time (s)' },
            y: { field: 'jain', type: 'quantitative', title: "Jain's index (0–1)", scale: { domain: [0, 1] } },
            color: { field: 'policy', type: 'nominal' },
            row: { field: 'load', type: 'nominal', title: null },
          },
        },
        {
          data: { values: series },
          title: 'GPU memory held by running topologies (share of the cluster)',
          width: 520,
          height: 120,
          mark: { type: 'line', interpolate: 'step-after' },
          encoding: {
            x: { field: 't', type: 'quantitative', title: 'time (s)' },
            y: { field: 'gpuMemUsed', type: 'quantitative', title: 'GPU memory (share, 0–1)', scale: { domain: [0, 1] } },
            color: { field: 'policy', type: 'nominal' },
            row: { field: 'load', type: 'nominal', title: null },
          },
        },
        {
          data: { values: perKind },
          title: 'mean wait until a topology runs, by kind',
          width: 240,
          height: 140,
          mark: 'bar',
          encoding: {
            x: { field: 'kind', type: 'nominal', title: 'topology kind' },
            xOffset: { field: 'policy', type: 'nominal' },
            y: { field: 'meanWaitSec', type: 'quantitative', title: 'mean wait (s)' },
            color: { field: 'policy', type: 'nominal' },
            column: { field: 'load', type: 'nominal', title: null },
          },
        },
      ],
    },
    backends: {},
    ratios,
    notes: [
      `SIMULATED, not measured on hardware: per load, ${n} topology submissions (Poisson, mean gap ${loads.map((l) => `${l.gapSec} s ${l.load}`).join(', ')}; seed 13; work 5–20 min each) on 8 simulated nodes of 16 cores, 32768 MB and 2 × 10240 MB GPUs (4 slots each), 8 worker ports per node. Every placement decision is made by nimbus's own placement round and the real scheduler (bench/support/fairness-sim.ts); only time, the store and the workers are simulated. No GPU ran anything.`,
      'Kinds: cpu = 1 spout (0.25 core, 512 MB) + 4–10 executors (0.5 core, 2048 MB) in 2–4 workers; gpu = reader + 1–3 GPU executors (1 core, 4096 MB, 4096 MB GPU memory, the paper’s JOB2 task) + sink, one GPU worker each; gpu-big = 8 GPU executors of 8192 MB GPU memory. 45 % / 45 % / 10 %.',
      'A topology runs once every executor is placed, at rate (workers it got) / (workers it asked for), slowed on nodes whose running workers ask more cores or memory than the node has (processor sharing, the kindest model of over-commitment: real workers past a node’s memory are killed). One with an executor left out stalls but keeps what it holds. Wait = submission to the first time it runs; turnaround = submission to done; a topology that never ran is counted to the end (a lower bound).',
      "hetero places in submission order and places partially (fewer workers; GPU executors left out when no GPU slot or memory is free), as Storm does, and counts no cores or memory. hdrf orders by dominant share (cores, memory, GPU memory), admits a topology only whole, and after OT holds for the longest-waiting topology the GPUs it needs (most free memory first) and the kinds of resources it is short of, letting others backfill with the rest; 'no reservation' is hdrf with OT out of reach.",
      "Jain's index (Σx)²/(n·Σx²) is over the topologies submitted and not finished at each moment, time-weighted; x = the dominant share of what each holds (0 while it waits). 'Service' uses x = the rate it runs at (0 while it cannot run), which does not reward large requests.",
      `Per kind (load, policy, kind: mean / max wait s, mean turnaround s): ${perKind.map((k) => `${String(k.load)} ${String(k.policy)} ${String(k.kind)}: ${String(k.meanWaitSec)} / ${String(k.maxWaitSec)}, ${String(k.meanTurnaroundSec)}`).join('; ')}.`,
      `Scheduling rounds and wall time per simulation: ${runs.map((x) => `${x.load} ${x.policy.label}: ${x.result.rounds} rounds, ${round(x.wallMs / 1000, 1)} s`).join('; ')}.`,
      'Paper (seed 000, §3.1–3.3): each job holds about 60 % of its own dominant resource under HDRF; fine-grained GPU sharing raises GPU use from about 30 % to 45 %. Our figures are on our own workload and cluster model, not a reproduction of theirs.',
      'Data files: fairness.csv (one row per load and policy), series.csv (time series), per-kind.csv.',
    ],
    quick: args.quick,
  });
  writeCsv(join(dir, 'series.csv'), series);
  writeCsv(join(dir, 'per-kind.csv'), perKind);
  if (args.json) process.stdout.write(`${JSON.stringify({ summaries, perKind, ratios })}\n`);
  else {
    const lines = summaries.map(
      (s) =>
        `  ${s.load}, ${s.policy}: J ${s.jainMean} (service ${s.jainSatisfactionMean}), wait mean ${s.meanWaitSec} s / max ${s.maxWaitSec} s, turnaround ${s.meanTurnaroundSec} s, ` +
        `GPU memory used ${s.gpuMemUtil} (held idle ${s.gpuMemIdle}), GPU slots ${s.gpuSlotsUtil}, never ran ${s.neverRan}, deadlock: ${s.deadlock}`,
    );
    process.stdout.write(`fairness (simulated cluster, ${n} submissions per load):\n${lines.join('\n')}\n  ratios: ${Object.entries(ratios).map(([k, v]) => `${k}: ${v}`).join('; ')}\n  report: ${dir}/summary.md\n`);
  }
}
