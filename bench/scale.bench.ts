/**
 * `npm run bench -- scale [--quick] [--json] [--points 100,1000] [--window S] [--soak MIN]`:
 * how far one nimbus and one ZooKeeper go (issue 29). Per point — 100, 500,
 * 1 000, 2 000 and 4 000 workers (`--quick`: 100 and 1 000), 4 slots a
 * supervisor, word-count topologies of 50 workers — a real ZooKeeper, a real
 * nimbus and simulated supervisors and workers speaking the real protocol
 * through hstorm's own code (bench/support/scale-sim.ts) run at the default
 * periods, and the point reports the columns of the issue's table (ZooKeeper
 * writes/s, write latency, CPU; nimbus CPU, its check round, rounds queued;
 * the transaction log's growth) plus submit/rebalance/kill latency, the time
 * nimbus takes to move a worker that stopped, and SIGTERM, each against its
 * target as "met" / "NOT met". `--soak MIN` runs the largest point for MIN
 * minutes and samples nimbus's memory every 10 s (is it flat?): RSS, heap
 * used and reserved, external, ArrayBuffers and the heap after the latest major
 * collection; the floors per 5 minutes and a line fitted through them (MB/h)
 * are the verdict (bench/support/scale-soak.ts). Two heap snapshots — at
 * minute 10 (a third of shorter soaks) and at the end — are compared by
 * constructor. scale-memory.csv, scale-memory-floors.csv, scale-heap-growth.csv
 * and scale-memory.svg beside the report, and bench-results/scale/memory-N.csv
 * as it goes.
 *
 * It refuses to start when the disk under the OS temp dir is nearly full, and
 * removes every data dir it made (ZooKeeper's logs included) when a point ends.
 */
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { writeCsv } from './support/csv.js';
import { writeReport, type Row } from './support/results.js';
import { writeMemoryPlot } from './support/scale-memory-plot.js';
import { memoryFloors, memoryVerdict, type MemoryFloor } from './support/scale-soak.js';
import type { GrowthRow } from './support/heap-snapshot-diff.js';
import { diskState, diskTooFull } from './support/scale-measure.js';
import { logCounts, MONITOR_SECS, runPoint, SHUTDOWN_BOUND_SECS, TASK_TIMEOUT_SECS, type PointResult } from './support/scale-point.js';

/** The targets of issue 29, item 3 (and 2: submit and SIGTERM). */
export const TARGETS = {
  nimbusCpuPct: 100,
  roundMaxMs: MONITOR_SECS * 1000,
  zkWriteP99Ms: 50,
  txnLogMbPerMin: 150,
  detectionSecs: TASK_TIMEOUT_SECS + 1,
  submitSecs: 2,
  sigtermSecs: SHUTDOWN_BOUND_SECS,
};

/** Where nimbus's log of each point is kept (bench-results/scale/, beside the report). */
const LOG_DIR = 'bench-results/scale';

function flag(rest: readonly string[], name: string): string | null {
  const i = rest.indexOf(name);
  return i >= 0 ? (rest[i + 1] ?? null) : null;
}

const met = (ok: boolean): string => (ok ? 'met' : 'NOT met');
const r1 = (x: number): number => Math.round(x * 10) / 10;
const r3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Whether each target holds at a point. */
export function verdicts(p: PointResult): Record<string, string> {
  return {
    'nimbus < 1 core': met(p.nimbusCpuPct < TARGETS.nimbusCpuPct),
    'round below its period, nothing queued': met(p.roundMaxMs < TARGETS.roundMaxMs),
    'ZK write p99 < 50 ms': met(p.zkProbeP99Ms < TARGETS.zkWriteP99Ms),
    'txn log ≤ 150 MB/min': met(p.txnLogMbPerMin <= TARGETS.txnLogMbPerMin),
    'dead worker moved ≤ timeout + 1 s': met(p.detectionSecs !== null && p.detectionSecs <= TARGETS.detectionSecs),
    'submit, rebalance, kill ≤ 2 s': met(Math.max(p.submitSecs, p.rebalanceSecs, p.killSecs) <= TARGETS.submitSecs),
    'SIGTERM within its bound': met(p.sigtermSecs !== null && p.sigtermSecs <= TARGETS.sigtermSecs),
  };
}

function row(p: PointResult): Row {
  return {
    workers: p.workers,
    supervisors: p.supervisors,
    topologies: p.topologies,
    zk_writes_per_s: Math.round(p.zkWritesPerSec),
    zk_write_p50_ms: r3(p.zkProbeP50Ms),
    zk_write_p99_ms: r3(p.zkProbeP99Ms),
    zk_server_update_p99_ms: p.zkServerUpdateP99Ms,
    zk_cpu_pct: r1(p.zkCpuPct),
    simulators_cpu_pct: r1(p.simCpuPct),
    nimbus_cpu_pct: r1(p.nimbusCpuPct),
    nimbus_cpu_max_pct: r1(p.nimbusCpuMaxPct),
    round_p50_ms: r3(p.roundP50Ms),
    round_max_ms: r3(p.roundMaxMs),
    rounds: p.rounds,
    ticks_skipped: p.skippedTicks,
    rounds_queued: 0,
    txn_log_mb_per_min: r1(p.txnLogMbPerMin),
    snapshots_mb: r1(p.snapshotMb),
    record_bytes: Math.round(p.recordBytes),
    liveness_reports_per_s: Math.round(p.reportsPerSec),
    submit_s: r3(p.submitSecs),
    rebalance_s: r3(p.rebalanceSecs),
    kill_s: r3(p.killSecs),
    ramp_submit_max_s: r3(p.rampSubmitMaxSecs),
    ramp_submit_retries: p.rampSubmitRetries,
    detection_s: p.detectionSecs === null ? null : r3(p.detectionSecs),
    sigterm_s: p.sigtermSecs === null ? null : r3(p.sigtermSecs),
    nimbus_rss_mb: Math.round(p.nimbusRssMb),
    nimbus_heap_mb: Math.round(p.nimbusHeapMb),
    window_s: Math.round(p.windowSecs),
    nimbus_zk_session_changes: logCounts(`${LOG_DIR}/nimbus-${p.workers}.log`).sessionChanges,
    load_avg_1m: r1(p.load1),
    ...verdicts(p),
  };
}

/** The issue's table, with this run's figures. */
function markdownTable(rows: readonly Row[]): string {
  const head = '| workers (supervisors) | ZK writes/s | ZK write p50/p99 | ZK CPU | nimbus CPU | nimbus check round p50/max | rounds queued (ticks skipped) | txn log | submit / rebalance / kill | dead worker moved after | SIGTERM |';
  const lines = rows.map(
    (r) =>
      `| ${r.workers} (${r.supervisors}) | ${r.zk_writes_per_s} | ${r.zk_write_p50_ms} / ${r.zk_write_p99_ms} ms | ${r.zk_cpu_pct} % | ${r.nimbus_cpu_pct} % | ${r.round_p50_ms} / ${r.round_max_ms} ms | 0 (${r.ticks_skipped}) | ${r.txn_log_mb_per_min} MB/min | ${r.submit_s} / ${r.rebalance_s} / ${r.kill_s} s | ${r.detection_s ?? '—'} s | ${r.sigterm_s ?? '—'} s |`,
  );
  return [head, `|${' --- |'.repeat(11)}`, ...lines].join('\n');
}

/** The soak's 5-minute floors, as docs/benchmarks.md shows them. */
function floorTable(floors: readonly MemoryFloor[]): string {
  const head = '| minute | heap after major GC (MB) | RSS floor (MB) | heap reserved floor (MB) | external floor (MB) | major GCs so far |';
  const lines = floors.map((f) => `| ${r1(f.minute)} | ${r1(f.heapAfterGcMb)} | ${Math.round(f.rssMb)} | ${Math.round(f.heapTotalMb)} | ${r1(f.externalMb)} | ${f.majorGcs} |`);
  return [head, `|${' --- |'.repeat(6)}`, ...lines].join('\n');
}

/** The constructors whose own size grew most between the two heap snapshots. */
function growthTable(rows: readonly GrowthRow[]): string {
  const head = '| constructor | objects before → after | own size before → after (MB) | grew (MB) |';
  const lines = rows.map((g) => `| ${g.name.replace(/\|/g, '\\|')} | ${g.countBefore} → ${g.countAfter} | ${g.selfMbBefore} → ${g.selfMbAfter} | ${g.grewMb} |`);
  return [head, `|${' --- |'.repeat(4)}`, ...lines].join('\n');
}

function uptime(): string {
  try {
    return execFileSync('uptime', { encoding: 'utf8' }).trim();
  } catch {
    return 'uptime unavailable';
  }
}

export async function run(args: BenchArgs): Promise<void> {
  const refusal = diskTooFull(tmpdir());
  if (refusal) {
    process.stderr.write(`scale: refusing to start: ${refusal}\n`);
    process.exitCode = 1;
    return;
  }
  const soakMin = Number(flag(args.rest, '--soak') ?? 0);
  const listed = flag(args.rest, '--points');
  let points = listed ? listed.split(',').map(Number) : args.quick ? [100, 1000] : [100, 500, 1000, 2000, 4000];
  if (points.some((p) => !Number.isInteger(p) || p < 4)) throw new Error(`--points takes worker counts (integers ≥ 4), got "${listed}"`);
  if (soakMin > 0) points = [Math.max(...points)];
  const windowSecs = soakMin > 0 ? Math.round(soakMin * 60) : Number(flag(args.rest, '--window') ?? (args.quick ? 30 : 60));
  const warmupSecs = args.quick ? 10 : 20;
  const before = { uptime: uptime(), freeGiB: diskState(tmpdir()).freeBytes / 2 ** 30 };
  const progress = new BenchProgress('scale', points.length * 8, !args.json);
  const results: PointResult[] = [];
  try {
    for (const workers of points) {
      const soak = soakMin > 0 && { memoryEverySecs: 10, heapSnapshotAtSecs: Math.min(600, Math.round(windowSecs / 3 / 10) * 10) };
      results.push(await runPoint({ workers, logDir: LOG_DIR, warmupSecs, windowSecs, step: (s) => progress.step(s), ...soak }));
    }
  } finally {
    progress.stop();
  }
  const after = { uptime: uptime(), freeGiB: diskState(tmpdir()).freeBytes / 2 ** 30 };
  const rows = results.map(row);
  const largest = results.at(-1)!;
  const smallest = results[0]!;
  const ratios: Record<string, number | string> = {
    // ZooKeeper has next to nothing to do at the smallest point: its p99 there is the machine's, not the cluster's.
    [`ZK write p99 at ${largest.workers} workers / at ${smallest.workers} workers (same run)`]: r3(largest.zkProbeP99Ms / Math.max(1e-3, smallest.zkProbeP99Ms)),
    [`nimbus CPU at ${largest.workers} workers (% of one core)`]: r1(largest.nimbusCpuPct),
    [`check round max / period at ${largest.workers} workers`]: r3(largest.roundMaxMs / (MONITOR_SECS * 1000)),
    [`txn log at ${largest.workers} workers (MB/min)`]: r1(largest.txnLogMbPerMin),
    'targets met at the largest point': `${Object.values(verdicts(largest)).filter((v) => v === 'met').length} of ${Object.keys(verdicts(largest)).length}`,
  };
  const floors = memoryFloors(largest.memory);
  const verdict = soakMin > 0 ? memoryVerdict(floors, (largest.heapGrowth?.atSecs[0] ?? 0) / 60) : null;
  if (verdict) {
    ratios['nimbus memory over the soak (verdict)'] = verdict.text;
    ratios['nimbus heap after major GC, fit of the 5-minute floors (MB/h)'] = verdict.heapAfterGcMbPerHour;
    ratios['nimbus RSS, fit of the 5-minute floors (MB/h)'] = verdict.rssFloorMbPerHour;
  }
  if (soakMin > 0) {
    const r = largest.simReports;
    ratios['supervisor liveness reports over the window: sent / expected (skipped, failed)'] = `${r.sent} / ${r.expected} (${r.skipped}, ${r.failed}): ${r.sent >= 0.99 * r.expected ? 'the simulators kept their periods' : 'the simulators MISSED periods (starved)'}`;
    ratios['times nimbus declared workers dead (its log)'] = logCounts(`${LOG_DIR}/nimbus-${largest.workers}.log`).deadVerdicts;
  }
  const growth = largest.heapGrowth;
  if (growth) ratios[`nimbus heap snapshots at ${growth.atSecs[0]} s and ${growth.atSecs[1]} s (MB of objects)`] = `${growth.totalMb[0]} → ${growth.totalMb[1]}`;
  const notes = [
    `load before: ${before.uptime}; after: ${after.uptime} (2-core machine shared with other work: CPU figures and latencies are noisy)`,
    `disk free under ${tmpdir()}: ${r1(before.freeGiB)} GiB before, ${r1(after.freeGiB)} GiB after (every data dir the benchmark made is removed)`,
    'ZooKeeper 3.8 (fsync on, full JIT, G1, 1 GiB heap), one nimbus process (`hstorm nimbus`), simulator processes for the supervisors and workers: each supervisor and each worker has its own ZooKeeper session; assignments are watched once per simulator process (a real supervisor watches them itself).',
    `defaults: worker.heartbeat.frequency.secs 1, supervisor.heartbeat.frequency.secs 1, nimbus.monitor.freq.secs ${MONITOR_SECS}, nimbus.task.timeout.secs ${TASK_TIMEOUT_SECS}, topology.stats.report.secs 10, supervisor.collector.period.secs 5`,
    'ZK write p50/p99: a client of its own writing 1.5 KB every 50 ms during the window; zk_server_update_p99_ms: ZooKeeper’s own (mntr, since the point started, ms resolution). ZK writes/s: mntr’s update count over the window.',
    'rounds queued: always 0 by construction (a monitor tick that finds its round still running is skipped and counted: ticks_skipped).',
    'dead worker moved after: from a simulated worker’s last moment (it stops beating, writing and closes its session) to the assignment without it in ZooKeeper.',
    'txn log: growth of the blocks ZooKeeper’s log files hold on disk over the window; snapshots_mb: snapshot files at the end.',
    ...(soakMin > 0
      ? [
          'soak: each heap snapshot stops nimbus while V8 writes it (seconds to a minute on a loaded machine): the round max, skipped ticks, dead-worker verdicts and the submit/rebalance/kill latencies of a soak include those stalls — read them from a sweep without --soak. Writing a snapshot also raises RSS for good, so RSS is fitted from the first snapshot on.',
        ]
      : []),
  ];
  const dir = await writeReport({
    experiment: 'scale',
    title: 'One nimbus and one ZooKeeper: cost per cluster size',
    command: `npm run bench -- scale${args.quick ? ' --quick' : ''}${listed ? ` --points ${listed}` : ''}${soakMin > 0 ? ` --soak ${soakMin}` : ''}`,
    rows,
    plot: {
      hconcat: [
        {
          mark: { type: 'line', point: true },
          encoding: { x: { field: 'workers', type: 'quantitative' }, y: { field: 'nimbus_cpu_pct', type: 'quantitative', title: 'nimbus CPU (% of one core)' } },
        },
        {
          mark: { type: 'line', point: true },
          encoding: { x: { field: 'workers', type: 'quantitative' }, y: { field: 'txn_log_mb_per_min', type: 'quantitative', title: 'ZooKeeper txn log (MB/min)' } },
        },
        {
          mark: { type: 'line', point: true },
          encoding: { x: { field: 'workers', type: 'quantitative' }, y: { field: 'round_max_ms', type: 'quantitative', title: 'nimbus check round, max (ms)' } },
        },
      ],
    },
    backends: {},
    ratios,
    notes,
    quick: args.quick,
  });
  if (largest.memory.length > 0) {
    writeCsv(`${dir}/scale-memory.csv`, largest.memory.map((m) => ({ ...m })));
    writeCsv(`${dir}/scale-memory-floors.csv`, floors.map((f) => ({ ...f })));
    await writeMemoryPlot(`${dir}/scale-memory.svg`, largest.memory, floors, `nimbus memory at ${largest.workers} workers`);
  }
  if (growth) writeCsv(`${dir}/scale-heap-growth.csv`, growth.rows.map((g) => ({ ...g })));
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ targets: TARGETS, points: rows, memory: largest.memory, floors, heapGrowth: growth, ratios, notes })}\n`);
    return;
  }
  process.stdout.write(`\n${markdownTable(rows)}\n\n`);
  for (const r of rows) {
    const v = Object.entries(verdicts(results.find((p) => p.workers === r.workers)!));
    process.stdout.write(`${r.workers} workers: ${v.map(([k, x]) => `${k}: ${x}`).join('; ')}\n`);
  }
  if (verdict) process.stdout.write(`\n${floorTable(floors)}\n\n`);
  if (growth) process.stdout.write(`${growthTable(growth.rows)}\n\n`);
  for (const [k, v] of Object.entries(ratios)) process.stdout.write(`${k}: ${v}\n`);
  for (const n of notes.slice(0, 2)) process.stdout.write(`${n}\n`);
  process.stdout.write(`written to ${dir}\n`);
}
