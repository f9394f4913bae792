/**
 * `npm run bench -- connectors [--quick] [--json]` (issue 25): how much the
 * runtime adds to the I/O of a queue-to-database pipeline. In one run, on a
 * private Redis and PostgreSQL (Debian's servers, started as the tests start
 * them), for each parallelism:
 *   - hand-written: a Node program doing the same work the plainest way —
 *     XREADGROUP 500 → transform → one INSERT … ON CONFLICT per batch (one
 *     statement, its own transaction) → XACK
 *     (bench/support/redis-to-postgres-baseline.ts), in one process;
 *   - hstorm: RedisStreamSpout → transform bolt → PostgresBolt (upsert),
 *     acking on (bench/topologies/redis-to-postgres.ts), the same number of
 *     consumers and of database writers, in `topology.workers` = the
 *     parallelism (a worker is one event loop: hstorm uses more than one core
 *     through workers, where Storm's executors are threads of one JVM);
 *   - at parallelism 2 and more, also hstorm in one worker, for what one
 *     event loop carries.
 * Each side reads its own stream of the same entries into its own table, in
 * rounds that alternate which side goes first (the machine is shared: one
 * pair back to back sees the same load). Reported per round: committed rows/s
 * from the first commit to the last row, CPU time per row of the hstorm
 * worker and of the hand-written process (which moves much less than rows/s
 * when other work shares the machine), hstorm's complete latency p50/p99 and
 * the hand-written program's read-to-XACK time per batch; the ratio is the
 * median over rounds of hstorm ÷ hand-written (target ≥ 0.7). Every table is
 * checked to hold every row.
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createClient } from 'redis';
import { runLocal } from '../cli/local-run.js';
import { Histogram } from '../common/histogram.js';
import { sampleChildCpu } from './support/child-cpu.js';
import { startTestPostgres } from '../test/helpers/servers/postgres.js';
import { startTestRedis } from '../test/helpers/servers/redis.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { machineDescription, writeReport, type ExperimentReport, type Row } from './support/results.js';
import { loadavg, round } from './support/topology-runs.js';
import { eventTableSql } from './topologies/event-transform.js';

const here = dirname(fileURLToPath(import.meta.url));
const TOPOLOGY = join(here, 'topologies', 'redis-to-postgres.js');
const BASELINE = join(here, 'support', 'redis-to-postgres-baseline.js');
const TARGET = 0.7;
/** The side that runs hstorm's tasks all in one worker at parallelism 2 and more. */
const ONE_WORKER = 'hstorm, 1 worker';
type Side = 'hand-written' | 'hstorm' | typeof ONE_WORKER;

async function fillEvents(url: string, stream: string, n: number): Promise<void> {
  const client = await createClient({ url }).connect();
  try {
    for (let i = 0; i < n; i += 1000) {
      const chunk = [];
      for (let j = i; j < Math.min(n, i + 1000); j++) chunk.push(client.xAdd(stream, '*', { uid: `u${j}`, amount: String((j % 1000) / 10), category: `cat${j % 7}` }));
      await Promise.all(chunk);
    }
  } finally {
    client.destroy();
  }
}

async function query(url: string, text: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}

/**
 * Rows per second as the database saw them: the rows written after the first
 * one, over the time from the first row to the last (`committed_at`, set by
 * PostgreSQL per row). The same measure for both sides, with no sampling
 * period in it (hstorm's progress comes from heartbeats a second apart, which
 * would cost it up to two seconds of a run of a few).
 */
async function committedRate(url: string, table: string): Promise<number> {
  const [{ n, secs }] = (await query(
    url,
    `SELECT count(*) - 1 AS n, extract(epoch FROM max(committed_at) - min(committed_at))::float8 AS secs FROM ${table}`,
  )) as [{ n: string; secs: number }];
  return secs > 0 ? Number(n) / secs : 0;
}

interface SideResult {
  p50Ms: number | null;
  p99Ms: number | null;
  /** CPU µs per committed row of the process(es) doing the side's work, from the first commit on. */
  cpuUsPerRow: number | null;
}

/** Pids to leave out of the workers' CPU: the database servers are children of this process too. */
const serverPids = new Set<number>();

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function handWritten(redisUrl: string, postgresUrl: string, stream: string, table: string, parallelism: number, total: number): Promise<SideResult> {
  const child = fork(BASELINE, [redisUrl, stream, postgresUrl, table, String(parallelism), String(total)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`the hand-written program exited with ${code}`);
  const { batchMs, cpuUsPerRow } = JSON.parse(out) as { batchMs: number[]; cpuUsPerRow: number | null };
  const h = new Histogram();
  for (const ms of batchMs) h.record(ms);
  const s = h.stats();
  return { p50Ms: s.p50, p99Ms: s.p99, cpuUsPerRow };
}

async function viaHstorm(redisUrl: string, postgresUrl: string, stream: string, table: string, parallelism: number, total: number, workers: number): Promise<SideResult> {
  let cpuFrom: { cpu: number; rows: number } | null = null;
  let cpuTo: { cpu: number; rows: number } | null = null;
  const workerCpu = (): number => [...(sampleChildCpu() ?? new Map<number, number>())].filter(([pid]) => !serverPids.has(pid)).reduce((a, [, ms]) => a + ms, 0);
  // Acked spout tuples are committed rows: the sink acks only after its batch's COMMIT.
  const summary = await runLocal({
    module: TOPOLOGY,
    name: `connectors-bench-p${parallelism}-w${workers}`,
    durationSec: 600,
    overrides: {
      'bench.redis.url': redisUrl,
      'bench.stream': stream,
      'bench.postgres.url': postgresUrl,
      'bench.table': table,
      'bench.parallelism': parallelism,
      'topology.workers': workers,
    },
    onProgress: (s) => {
      if (s.acked > 0 && (cpuTo === null || cpuTo.rows < total)) {
        const now = { cpu: workerCpu(), rows: s.acked };
        cpuFrom ??= now;
        cpuTo = now;
      }
    },
    until: (s) => s.acked >= total,
    drainSec: 3,
  });
  const from = cpuFrom as { cpu: number; rows: number } | null;
  const to = cpuTo as { cpu: number; rows: number } | null;
  const cpuUsPerRow = from && to && to.rows > from.rows ? ((to.cpu - from.cpu) * 1000) / (to.rows - from.rows) : null;
  return { p50Ms: summary.completeLatencyMs.p50, p99Ms: summary.completeLatencyMs.p99, cpuUsPerRow };
}

/** One panel: the median over rounds of `field`, per parallelism and side. */
function bars(field: string, title: string, yTitle: string): object {
  return {
    width: 260,
    height: 220,
    title,
    mark: 'bar',
    encoding: {
      x: { field: 'parallelism', type: 'ordinal', title: 'consumers and writers', axis: { labelAngle: 0 } },
      xOffset: { field: 'side' },
      y: { field, aggregate: 'median', type: 'quantitative', title: yTitle },
      color: { field: 'side', type: 'nominal', legend: { orient: 'top' } },
    },
  };
}

export async function run(args: BenchArgs): Promise<void> {
  const total = args.quick ? 50_000 : 300_000;
  const parallelisms = args.quick ? [1] : [1, 2];
  const rounds = args.quick ? 1 : 3;
  const load = loadavg();
  const sidesAt = (p: number): Side[] => (p === 1 ? ['hand-written', 'hstorm'] : ['hand-written', 'hstorm', ONE_WORKER]);
  const bar = new BenchProgress('connectors', parallelisms.reduce((n, p) => n + sidesAt(p).length * rounds, 1), !args.json);
  bar.step('starting Redis and PostgreSQL');
  const [redis, postgres] = await Promise.all([startTestRedis(), startTestPostgres()]);
  for (const pid of [redis.process.pid, postgres.process.pid]) if (pid !== undefined) serverPids.add(pid);
  const rows: Row[] = [];
  const ratios: Record<string, number | string> = {};
  const sides: Record<Side, (redisUrl: string, postgresUrl: string, stream: string, table: string, p: number, total: number) => Promise<SideResult>> = {
    'hand-written': handWritten,
    hstorm: (...a) => viaHstorm(...a, a[4]),
    [ONE_WORKER]: (...a) => viaHstorm(...a, 1),
  };
  try {
    for (const p of parallelisms) {
      const perRound: { rate: number; cpu: number | null; oneWorker: number | null }[] = [];
      for (let r = 1; r <= rounds; r++) {
        const order = r % 2 === 1 ? sidesAt(p) : sidesAt(p).reverse();
        const results: Partial<Record<Side, SideResult & { rowsPerSec: number }>> = {};
        for (const side of order) {
          bar.step(`${side}, parallelism ${p}, round ${r}`);
          const stream = `${side}-p${p}-r${r}`;
          const table = `${side.replace(/[^a-z0-9]+/g, '_')}_p${p}_r${r}`;
          await fillEvents(redis.url, stream, total);
          await query(postgres.url, eventTableSql(table));
          const side$ = await sides[side](redis.url, postgres.url, stream, table, p, total);
          const [{ n }] = (await query(postgres.url, `SELECT count(*)::int AS n FROM ${table}`)) as [{ n: number }];
          if (n !== total) throw new Error(`${side}, parallelism ${p}, round ${r}: ${n} rows in ${table}, expected ${total}`);
          const res = { ...side$, rowsPerSec: await committedRate(postgres.url, table) };
          results[side] = res;
          rows.push({
            parallelism: p,
            round: r,
            side,
            rowsPerSec: Math.round(res.rowsPerSec),
            cpuUsPerRow: res.cpuUsPerRow === null ? null : round(res.cpuUsPerRow, 1),
            latencyP50Ms: res.p50Ms === null ? null : round(res.p50Ms),
            latencyP99Ms: res.p99Ms === null ? null : round(res.p99Ms),
            workers: side === 'hand-written' ? null : side === 'hstorm' ? p : 1,
            latency: side === 'hand-written' ? 'batch, read → XACK' : 'complete latency (emit → ack after COMMIT)',
          });
        }
        const h = results.hstorm!;
        const b = results['hand-written']!;
        const one = results[ONE_WORKER];
        perRound.push({
          rate: h.rowsPerSec / Math.max(1, b.rowsPerSec),
          cpu: h.cpuUsPerRow !== null && b.cpuUsPerRow !== null ? h.cpuUsPerRow / b.cpuUsPerRow : null,
          oneWorker: one ? one.rowsPerSec / Math.max(1, b.rowsPerSec) : null,
        });
      }
      const ratio = median(perRound.map((x) => x.rate));
      const cpus = perRound.flatMap((x) => (x.cpu === null ? [] : [x.cpu]));
      const mine = rows.filter((x) => x.parallelism === p && x.side === 'hstorm');
      ratios[`parallelism ${p}: hstorm${p > 1 ? ` (${p} workers)` : ''} ÷ hand-written rows/s, median of ${rounds} round(s) (target ≥ ${TARGET})`] =
        `${round(ratio)}× — ${ratio >= TARGET ? 'met' : 'NOT met'} (rounds: ${perRound.map((x) => round(x.rate)).join(', ')})`;
      const oneWorker = perRound.flatMap((x) => (x.oneWorker === null ? [] : [x.oneWorker]));
      if (oneWorker.length > 0) ratios[`parallelism ${p}: ${ONE_WORKER} ÷ hand-written rows/s, median (what one event loop carries)`] = `${round(median(oneWorker))}× (rounds: ${oneWorker.map((x) => round(x)).join(', ')})`;
      if (cpus.length > 0) ratios[`parallelism ${p}: CPU per row, hstorm worker ÷ hand-written process (median)`] = `${round(median(cpus))}×`;
      ratios[`parallelism ${p}: hstorm complete latency p99 (median of rounds)`] = `${round(median(mine.map((x) => Number(x.latencyP99Ms))))} ms`;
    }
  } finally {
    bar.stop();
    await Promise.all([redis.stop(), postgres.stop()]);
  }

  const dir = await writeReport({
    experiment: 'connectors',
    title: 'Redis stream → transform → PostgreSQL: hstorm vs a hand-written Node program',
    command: `npm run bench -- connectors${args.quick ? ' --quick' : ''}`,
    rows,
    plot: {
      hconcat: [
        bars('rowsPerSec', 'committed rows/s', 'rows/s (median of rounds)'),
        bars('cpuUsPerRow', 'CPU per row of the hstorm worker / the hand-written process', 'µs per row (median of rounds)'),
      ],
    } as ExperimentReport['plot'],
    backends: {},
    ratios,
    notes: [
      `machine: ${machineDescription()}; load average at start ${load}, at end ${loadavg()}.`,
      `${total.toLocaleString('en')} entries { uid, amount, category } per side, parallelism and round, each run its own stream and table; rows/s from the first commit to the last row (startup excluded on both sides); ${rounds} round(s) per parallelism, alternating which side goes first. Every table ends with every row.`,
      'CPU per row: the hstorm worker processes (spouts, bolts and ackers) against the hand-written process, from the first commit on; the Redis and PostgreSQL servers do the same work for both and are not counted.',
      `hstorm: topology.workers = the parallelism (H-Storm's α placement deals each component's tasks over the workers that hold its inputs, so each worker holds one spout, transform and sink task, and localOrShuffle keeps a pipeline in its worker); at parallelism 2 and more also "${ONE_WORKER}", every task on one event loop. topology.max.spout.pending 1000, RedisStreamSpout reading 500 at most per XREADGROUP, PostgresBolt batches of 500 / 20 ms upserted in one statement and acked after it committed, XACK batched per event-loop turn. Hand-written: one process, each consumer a strict read → write → ack loop with its own connections.`,
      'The latencies differ in kind: hstorm\'s is per tuple from emit to the ack after its batch\'s COMMIT; the hand-written program\'s is per batch from its read to its XACK.',
    ],
    quick: args.quick,
  });
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ bench: 'connectors', rows, ratios, dir })}\n`);
    return;
  }
  process.stdout.write(`connectors: Redis stream → transform → PostgreSQL, ${total.toLocaleString('en')} rows per run; load average ${load} → ${loadavg()}\n`);
  for (const r of rows) {
    process.stdout.write(`  p=${r.parallelism} round ${r.round} ${String(r.side).padEnd(17)} ${String(r.rowsPerSec).padStart(7)} rows/s  ${String(r.cpuUsPerRow).padStart(6)} µs CPU/row  p50 ${r.latencyP50Ms} ms  p99 ${r.latencyP99Ms} ms (${r.latency})\n`);
  }
  for (const [k, v] of Object.entries(ratios)) process.stdout.write(`  ${k}: ${v}\n`);
  process.stdout.write(`report: ${dir}/summary.md\n`);
}
