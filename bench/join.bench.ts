/**
 * `npm run bench -- join [--quick] [--json]` — JoinBolt's join of one window (issue 42), in this process (no cluster:
 * the join itself, not the emits' trip), against its baseline in the same run: the same join as nested loops (each
 * left record scans the right stream, as a join without hashing does), on Nexmark's shape — a window of auctions and
 * of bids on them, joined on the auction id (`new JoinBolt('auctions', 'id').join('bids', 'auction', 'auctions')`):
 * half the window auctions (ids 0 … n/2 − 1), half bids on a uniformly drawn auction (seeded). Both produce the same
 * records (checked). Time per window, median of runs; the hash join should grow linearly with the window, the nested
 * loops quadratically.
 */
import { performance } from 'node:perf_hooks';
import { Count, Fields, JoinBolt, type TupleWindow, type Tuple } from '../topology-sdk/index.js';
import { testContext, testTuple, CapturingOutputCollector } from '../testing/index.js';
import { seededRandom } from '../common/seeded-random.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { machineDescription, writeReport, type ExperimentReport, type Row } from './support/results.js';
import { loadavg, round } from './support/topology-runs.js';

// One Fields per stream, as the runtime gives every tuple of a stream the same one.
const AUCTION = new Fields(['id', 'item', 'reserve']);
const BID = new Fields(['auction', 'bidder', 'price']);

/** A window of n tuples: n/2 auctions, then n/2 bids interleaved with them as they would arrive (seeded). */
function windowOf(n: number): Tuple[] {
  const random = seededRandom(42 + n);
  const auctions = Math.floor(n / 2);
  const out: Tuple[] = [];
  let a = 0;
  for (let i = 0; i < n; i++) {
    // An auction while some are left and the coin says so (or no auction exists yet), else a bid on one opened so far.
    if (a < auctions && (a === 0 || random() < 0.5 || i - a >= n - auctions)) {
      out.push(testTuple([a, `item-${a}`, 100 + (a % 37)], { component: 'auctions', fields: AUCTION }));
      a++;
    } else {
      const auction = Math.floor(random() * a);
      out.push(testTuple([auction, `bidder-${i % 1000}`, 1 + (i % 500)], { component: 'bids', fields: BID }));
    }
  }
  return out;
}

/** A sink that only counts: the join's own cost, not a collector's. */
class Counting extends CapturingOutputCollector {
  count = 0;
  override readonly emit = (): number[] => {
    this.count++;
    return [];
  };
}

function joiner(): { bolt: JoinBolt; out: Counting } {
  const bolt = new JoinBolt('auctions', 'id').join('bids', 'auction', 'auctions').select('auctions:id, item, bidder, price').withTumblingWindow(new Count(1));
  const out = new Counting();
  bolt.prepare({}, testContext({ component: 'join' }), out);
  return { bolt, out };
}

/** The baseline: the same records by nested loops (for each auction, every bid), in the same order. */
function nestedLoop(tuples: readonly Tuple[], emit: (values: unknown[], anchors: Tuple[]) => void): void {
  const auctions = tuples.filter((t) => t.sourceComponent === 'auctions');
  const bids = tuples.filter((t) => t.sourceComponent === 'bids');
  for (const a of auctions) {
    const id = a.getValueByField('id');
    for (const b of bids) if (b.getValueByField('auction') === id) emit([id, a.getValueByField('item'), b.getValueByField('bidder'), b.getValueByField('price')], [a, b]);
  }
}

/** Largest window the nested loops run on. */
const NESTED_MAX = 20_000;

function median(xs: readonly number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

export async function run(args: BenchArgs): Promise<void> {
  const sizes = args.quick ? [1000, 5000, 10_000] : [1000, 5000, 10_000, 20_000, 50_000];
  const load = loadavg();
  const bar = new BenchProgress('join', sizes.length * 2, !args.json);
  const rows: Row[] = [];
  for (const n of sizes) {
    const tuples = windowOf(n);
    const window = { get: () => tuples } as unknown as TupleWindow;
    bar.step(`hash join, ${n} tuples`);
    const hash: number[] = [];
    let records = 0;
    for (let rep = 0; rep < 7; rep++) {
      const { bolt, out } = joiner();
      const t0 = performance.now();
      bolt.execute(window);
      const ms = performance.now() - t0;
      // The first two warm the JIT up.
      if (rep >= 2) hash.push(ms);
      records = out.count;
    }
    rows.push({ tuples: n, impl: 'JoinBolt (hash join)', msPerWindow: round(median(hash), 3), records, tuplesPerMs: round(n / median(hash), 1) });
    bar.step(`nested loops, ${n} tuples`);
    // Quadratic: past NESTED_MAX a run takes minutes on a small machine, and says nothing the smaller ones do not.
    if (n > NESTED_MAX) continue;
    const nested: number[] = [];
    let nestedRecords = 0;
    for (let rep = 0; rep < (n >= 20_000 ? 1 : 3); rep++) {
      let count = 0;
      const t0 = performance.now();
      nestedLoop(tuples, () => count++);
      nested.push(performance.now() - t0);
      nestedRecords = count;
    }
    if (records !== nestedRecords) throw new Error(`join of ${n} tuples: the hash join gave ${records} records, the nested loops ${nestedRecords}`);
    rows.push({ tuples: n, impl: 'nested loops (baseline)', msPerWindow: round(median(nested), 3), records: nestedRecords, tuplesPerMs: round(n / median(nested), 1) });
  }
  bar.stop();

  const ms = (impl: string, n: number) => rows.find((r) => r.tuples === n && String(r.impl).startsWith(impl))!.msPerWindow as number;
  const ratios: Record<string, number | string> = {};
  for (const n of sizes.filter((x) => x <= NESTED_MAX)) ratios[`nested loops ÷ hash join, time per window of ${n} tuples`] = round(ms('nested', n) / ms('JoinBolt', n), 1);
  const [small, large] = [sizes[0]!, sizes[sizes.length - 1]!];
  ratios[`hash join: time at ${large} ÷ time at ${small} (linear: ${large / small})`] = round(ms('JoinBolt', large) / ms('JoinBolt', small), 1);
  const dir = await writeReport({
    experiment: 'join',
    title: 'JoinBolt: hash join of one window (auctions ⋈ bids on auction id) vs nested loops',
    command: `npm run bench -- join${args.quick ? ' --quick' : ''}`,
    rows,
    plot: {
      width: 360,
      height: 240,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'tuples', type: 'quantitative', title: 'tuples in the window', scale: { type: 'log' } },
        y: { field: 'msPerWindow', type: 'quantitative', title: 'ms per window (median)', scale: { type: 'log' } },
        color: { field: 'impl', type: 'nominal', title: null },
      },
    } as ExperimentReport['plot'],
    backends: { join: 'plain JS (no GPU variant: see docs/windowing.md, "Joining streams")' },
    ratios,
    notes: [
      `machine: ${machineDescription()}; load average at start ${load}, at end ${loadavg()} (shared machine: medians of 5 runs after 2 warm-up runs for the hash join; 3 runs, or 1 from 20 000 tuples, for the nested loops, which do not run past ${NESTED_MAX} tuples: quadratic, they would take minutes).`,
      'In this process, the JoinBolt as a worker calls it (execute(window)) with a collector that only counts: the join itself. In a topology each record is also an emit anchored to its two tuples, which costs more than the join (docs/benchmarks.md).',
    ],
    quick: args.quick,
  });
  if (args.json) {
    process.stdout.write(`${JSON.stringify({ bench: 'join', rows, ratios, dir })}\n`);
    return;
  }
  for (const r of rows) process.stdout.write(`  ${String(r.tuples).padStart(6)} tuples  ${String(r.impl).padEnd(24)} ${String(r.msPerWindow).padStart(10)} ms/window  ${String(r.records).padStart(7)} records\n`);
  for (const [k, v] of Object.entries(ratios)) process.stdout.write(`  ${k}: ${v}\n`);
  process.stdout.write(`report: ${dir}/summary.md\n`);
}
