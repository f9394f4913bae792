/**
 * `npm run bench -- connectors [--quick] [--json]` (issue 25): how much the
 * runtime adds to the I/O of a queue-to-database pipeline. In one run, on a
 * private Redis and PostgreSQL (Debian's servers, started as the tests start
 * them), for each parallelism:
 *   - hand-written: a Node program doing the same work the plainest way —
 *     XREADGROUP 500 → transform → one INSERT … ON CONFLICT per batch in a
 *     transaction → XACK (bench/support/redis-to-postgres-baseline.ts);
 *   - hstorm: RedisStreamSpout → transform bolt → PostgresBolt (upsert),
 *     acking on, one worker (bench/topologies/redis-to-postgres.ts), the
 *     same number of consumers and of database writers.
 * Each side reads its own stream of the same entries into its own table.
 * Reported: committed rows/s from the first commit to the last row, hstorm ÷
 * hand-written (target ≥ 0.7), hstorm's complete latency p50/p99 and the
 * hand-written program's read-to-XACK time per batch. Both tables are checked
 * to hold every row.
 */
import { fork } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createClient } from 'redis';
import { runLocal } from '../cli/local-run.js';
import { Histogram } from '../common/histogram.js';
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

/** Rows per second from the first sample with a commit to the moment the last row was in. */
function rateFrom(samples: readonly [number, number][], total: number): number {
  const first = samples.find(([, n]) => n > 0);
  const done = samples.find(([, n]) => n >= total);
  if (!first || !done || done[0] <= first[0]) return 0;
  return (total - first[1]) / (done[0] - first[0]);
}

interface SideResult {
  rowsPerSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

async function handWritten(redisUrl: string, postgresUrl: string, stream: string, table: string, parallelism: number, total: number): Promise<SideResult> {
  const child = fork(BASELINE, [redisUrl, stream, postgresUrl, table, String(parallelism), String(total)], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`the hand-written program exited with ${code}`);
  const { progress, batchMs } = JSON.parse(out) as { progress: [number, number][]; batchMs: number[] };
  const h = new Histogram();
  for (const ms of batchMs) h.record(ms);
  const s = h.stats();
  return { rowsPerSec: rateFrom(progress, total), p50Ms: s.p50, p99Ms: s.p99 };
}

async function viaHstorm(redisUrl: string, postgresUrl: string, stream: string, table: string, parallelism: number, total: number): Promise<SideResult> {
  const samples: [number, number][] = [];
  // Acked spout tuples are committed rows: the sink acks only after its batch's COMMIT.
  const summary = await runLocal({
    module: TOPOLOGY,
    name: `connectors-bench-p${parallelism}`,
    durationSec: 600,
    overrides: {
      'bench.redis.url': redisUrl,
      'bench.stream': stream,
      'bench.postgres.url': postgresUrl,
      'bench.table': table,
      'bench.parallelism': parallelism,
      'topology.workers': 1,
    },
    onProgress: (s, t) => samples.push([t, s.acked]),
    until: (s) => s.acked >= total,
    drainSec: 3,
  });
  return { rowsPerSec: rateFrom(samples, total), p50Ms: summary.completeLatencyMs.p50, p99Ms: summary.completeLatencyMs.p99 };
}

export async function run(args: BenchArgs): Promise<void> {
  const total = args.quick ? 30_000 : 200_000;
  const parallelisms = args.quick ? [1] : [1, 2];
  const load = loadavg();
  const bar = new BenchProgress('connectors', 2 * parallelisms.length + 1, !args.json);
  bar.step('starting Redis and PostgreSQL');
  const [redis, postgres] = await Promise.all([startTestRedis(), startTestPostgres()]);
  const rows: Row[] = [];
  const ratios: Record<string, number | string> = {};
  try {
    for (const p of parallelisms) {
      const sides: [string, typeof handWritten][] = [
        ['hand-written', handWritten],
        ['hstorm', viaHstorm],
      ];
      const results = new Map<string, SideResult>();
      for (const [side, runSide] of sides) {
        bar.step(`${side}, parallelism ${p}`);
        const stream = `${side}-p${p}`;
        const table = `${side.replace('-', '_')}_p${p}`;
        await fillEvents(redis.url, stream, total);
        await query(postgres.url, eventTableSql(table));
        const r = await runSide(redis.url, postgres.url, stream, table, p, total);
        const [{ n }] = (await query(postgres.url, `SELECT count(*)::int AS n FROM ${table}`)) as [{ n: number }];
        if (n !== total) throw new Error(`${side}, parallelism ${p}: ${n} rows in ${table}, expected ${total}`);
        results.set(side, r);
        rows.push({
          parallelism: p,
          side,
          rowsPerSec: Math.round(r.rowsPerSec),
          latencyP50Ms: r.p50Ms === null ? null : round(r.p50Ms),
          latencyP99Ms: r.p99Ms === null ? null : round(r.p99Ms),
          latency: side === 'hstorm' ? 'complete latency (emit → ack after COMMIT)' : 'batch, read → XACK',
        });
      }
      const ratio = results.get('hstorm')!.rowsPerSec / Math.max(1, results.get('hand-written')!.rowsPerSec);
      ratios[`parallelism ${p}: hstorm ÷ hand-written rows/s (target ≥ ${TARGET})`] = `${round(ratio)}× — ${ratio >= TARGET ? 'met' : 'NOT met'}`;
      ratios[`parallelism ${p}: hstorm complete latency p99`] = `${rows.at(-1)!.latencyP99Ms} ms`;
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
        {
          width: 260,
          height: 220,
          title: 'committed rows/s',
          mark: 'bar',
          encoding: {
            x: { field: 'parallelism', type: 'ordinal', title: 'consumers and writers', axis: { labelAngle: 0 } },
            xOffset: { field: 'side' },
            y: { field: 'rowsPerSec', type: 'quantitative', title: 'rows/s' },
            color: { field: 'side', type: 'nominal', legend: { orient: 'top' } },
          },
        },
        {
          width: 260,
          height: 220,
          title: 'latency p99 (hstorm: complete; hand-written: per batch)',
          mark: 'bar',
          encoding: {
            x: { field: 'parallelism', type: 'ordinal', title: 'consumers and writers', axis: { labelAngle: 0 } },
            xOffset: { field: 'side' },
            y: { field: 'latencyP99Ms', type: 'quantitative', title: 'ms' },
            color: { field: 'side', type: 'nominal' },
          },
        },
      ],
    } as ExperimentReport['plot'],
    backends: {},
    ratios,
    notes: [
      `machine: ${machineDescription()}; load average at start ${load}, at end ${loadavg()}.`,
      `${total.toLocaleString('en')} entries { uid, amount, category } per side and parallelism, each side its own stream and table; rows/s from the first commit to the last row (startup excluded on both sides). Both tables end with every row.`,
      'hstorm: one worker process (spout, transform, sink and acker in it), topology.max.spout.pending 1000, RedisStreamSpout reading 500 at most per XREADGROUP, PostgresBolt batches of 500 / 20 ms upserted in one transaction and acked after COMMIT, XACK batched per event-loop turn. Hand-written: one process, each consumer a strict read → write → ack loop with its own connections.',
      'The latencies differ in kind: hstorm\'s is per tuple from emit to the ack after its batch\'s COMMIT; the hand-written program\'s is per batch from its read to its XACK.',
    ],
    quick: args.quick,
  });
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ bench: 'connectors', rows, ratios, dir })}\n`);
    return;
  }
  process.stdout.write(`connectors: Redis stream → transform → PostgreSQL, ${total.toLocaleString('en')} rows per run; load average ${load} → ${loadavg()}\n`);
  for (const r of rows) process.stdout.write(`  p=${r.parallelism} ${String(r.side).padEnd(13)} ${String(r.rowsPerSec).padStart(7)} rows/s  p50 ${r.latencyP50Ms} ms  p99 ${r.latencyP99Ms} ms (${r.latency})\n`);
  for (const [k, v] of Object.entries(ratios)) process.stdout.write(`  ${k}: ${v}\n`);
  process.stdout.write(`report: ${dir}/summary.md\n`);
}
