/**
 * The partition trials (issue 28): a three-host cluster on one machine —
 * host A runs `hstorm dev-zookeeper` and `hstorm nimbus`, hosts B and C a
 * supervisor each, every daemon in its own network namespace behind a bridge
 * (netns-lab.ts) and started through the CLI (test/helpers/cluster-processes.ts)
 * — runs the exact-count topology of the fault suite (ids → relay → sink,
 * 2 workers, 2 spout tasks at 20 ids/s, message timeout 5 s, pending 200)
 * while iptables rules inside C's namespace cut it off. For each trial:
 *   - lost: ids that never reached the sink — must be 0, and every id acked;
 *   - duplicates: executions beyond the first — must stay within what can be
 *     in flight, 2 × spout tasks × topology.max.spout.pending (issue 28, item 4);
 *   - recovery: seconds from the heal until the ack rate over one second is
 *     back to half its rate before the fault (not merely "a few acks": a
 *     trickle of acks hid a 23 s stall before the links healed by themselves).
 * The table is printed at the end; docs/faults.md holds a run of it. The
 * trial tagged "(core)" is what `npm test` runs; the machine must allow
 * network namespaces (root, `ip netns`, iptables), or the suite is skipped
 * with the reason printed.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TopologyDetail } from '../../nimbus/views.js';
import { readAcked, readSinkIds } from '../fixtures/acking-topology.js';
import { PACKAGE_ROOT, ProcessCluster, holdFaultFor, processAlive, waitFor } from '../helpers/cluster-processes.js';
import { NetLab, slowLinkUnavailableReason, unavailableReason } from './netns-lab.js';

const ACKING = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'acking-topology.js');
const SPOUTS = 2;
const PENDING = 200;
const RATE = 20;
/** Ids per spout task: ~45 s of traffic, so that ids still flow well after a 15–30 s fault heals. */
const MESSAGES = 900;
const DUPLICATE_BOUND = 2 * SPOUTS * PENDING;
const RECOVERY_BOUND_SEC = 60;
const SAMPLE_MS = 200;

interface TrialResult {
  trial: string;
  /** The ack rate over the fault's second half, against before it ("1.00×": held; a cut node's work moved elsewhere counts). */
  heldRatio?: number;
  recoverySec: number | null;
  lost: number;
  duplicates: number;
  delivered: number;
}

const results: TrialResult[] = [];

function partitionTable(rows: readonly TrialResult[]): string {
  return [
    '| partition | recovery s (ack rate ≥ ½ of before) | ack rate during / before | lost | duplicates (bound ' + DUPLICATE_BOUND + ') | ids delivered |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.trial} | ${r.recoverySec === null ? 'never' : r.recoverySec.toFixed(1)} | ${r.heldRatio === undefined ? '—' : `${r.heldRatio.toFixed(2)}×`} | ${r.lost} | ${r.duplicates} | ${r.delivered} |`,
    ),
  ].join('\n');
}

/** Acked ids over every spout task, sampled: the ack rate before a fault and when it is back. */
class AckRate {
  private readonly samples: { t: number; acked: number }[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly dir: string) {
    this.timer = setInterval(() => this.samples.push({ t: Date.now(), acked: this.acked() }), SAMPLE_MS);
  }

  acked(): number {
    let n = 0;
    for (let t = 0; t < SPOUTS; t++) n += readAcked(this.dir, t).size;
    return n;
  }

  /** Acks per second over the last `ms`; null until that much has been sampled. */
  rateOver(ms: number): number | null {
    const last = this.samples.at(-1);
    const first = last && [...this.samples].reverse().find((s) => last.t - s.t >= ms);
    return last && first ? ((last.acked - first.acked) * 1000) / (last.t - first.t) : null;
  }

  /** Acks per second between two times (the samples nearest inside them); null with fewer than two samples there. */
  rateBetween(from: number, to: number): number | null {
    const inside = this.samples.filter((s) => s.t >= from && s.t <= to);
    const first = inside[0];
    const last = inside.at(-1);
    return first && last && last.t > first.t ? ((last.acked - first.acked) * 1000) / (last.t - first.t) : null;
  }

  /** Seconds from `from` to the end of the first window of ≥ 1 s, starting after `from`, whose rate reaches `rate`; null if none yet. */
  backTo(rate: number, from: number): number | null {
    const after = this.samples.filter((s) => s.t >= from);
    for (let j = 0; j < after.length; j++) {
      for (let i = j - 1; i >= 0; i--) {
        const dt = after[j]!.t - after[i]!.t;
        if (dt < 1000) continue;
        if (((after[j]!.acked - after[i]!.acked) * 1000) / dt >= rate) return (after[j]!.t - from) / 1000;
        break;
      }
    }
    return null;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

describe('partition trials (3 hosts in network namespaces: A zookeeper+nimbus, B and C a supervisor each)', function () {
  this.timeout(600_000);
  let lab: NetLab | null = null;
  let cluster: ProcessCluster | null = null;
  let dataDir = '';

  before(async function () {
    const reason = unavailableReason();
    if (reason) {
      process.stdout.write(`      skipped: ${reason}\n`);
      this.skip();
    }
    this.timeout(180_000);
    lab = NetLab.create(['a', 'b', 'c']);
    const host = (n: string) => ({ ns: lab!.host(n).ns, address: lab!.host(n).address });
    cluster = await ProcessCluster.start({
      coreHost: host('a'),
      supervisors: [
        { id: 'sup-b', host: host('b') },
        { id: 'sup-c', host: host('c') },
      ],
      config: { 'hstorm.zookeeper.session.timeout.ms': 4000, 'nimbus.scheduler': 'even' },
    });
    dataDir = join(cluster.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
  });

  after(async function () {
    this.timeout(120_000);
    if (results.length > 0) process.stdout.write(`\n${partitionTable(results)}\n`);
    try {
      await cluster?.stop();
    } finally {
      lab?.destroy();
    }
  });

  afterEach(async function () {
    if (!cluster || !lab) return;
    for (const h of ['a', 'b', 'c']) lab.heal(h);
    if (this.currentTest?.state === 'failed') process.stderr.write(`${cluster.logs(40)}\n`);
    await cluster.killAll().catch((err: unknown) => process.stderr.write(`could not clean up topologies: ${(err as Error).message}\n`));
    await waitFor('no topology left', async () => (await cluster!.list()).length === 0, 60_000, 500).catch(() => undefined);
    await waitFor('both supervisors registered again', async () => (await cluster!.supervisorList()).length === 2, 120_000, 500).catch(() => undefined);
  });

  const allRunning = (d: TopologyDetail): boolean =>
    d.workers.length === 2 && d.workers.every((w) => w.liveness === 'alive' && w.metrics !== null && w.metrics.epoch === d.epoch && processAlive(w.metrics.pid));

  /**
   * Runs one trial: the fault is made by `cut` and lasts `holdMs`; then every rule is removed and the rest measured.
   * `messages`: ids per spout task, enough that ids still flow well after the heal.
   */
  const trial = async (title: string, name: string, holdMs: number, cut: (l: NetLab) => void | Promise<void>, messages = MESSAGES): Promise<TrialResult> => {
    const c = cluster!;
    const dir = join(dataDir, name);
    mkdirSync(dir, { recursive: true });
    await c.submit(ACKING, name, { 'acking.dir': dir, 'acking.messages': messages, 'acking.rate': RATE, 'acking.spouts': SPOUTS, 'acking.sink.record': true, 'topology.max.spout.pending': PENDING });
    const detail = await waitFor(`${name} running on both nodes`, async () => {
      const d = await c.describe(name);
      return allRunning(d) && new Set(d.workers.map((w) => w.supervisor)).size === 2 ? d : null;
    }, 120_000, 250);
    c.trackPids(detail.workers.map((w) => w.metrics!.pid));
    const rate = new AckRate(dir);
    try {
      await waitFor(`${name}: 5 s of acking before the fault`, () => rate.acked() >= 10 && (rate.rateOver(5000) ?? 0) > 0 && rate.rateOver(5000), 120_000, 100);
      const before = rate.rateOver(5000)!;
      const faultAt = Date.now();
      await cut(lab!);
      await holdFaultFor(holdMs);
      const heldRate = rate.rateBetween(faultAt + holdMs / 2, Date.now());
      for (const h of ['a', 'b', 'c']) lab!.heal(h);
      const healedAt = Date.now();
      const recoverySec = await waitFor('the ack rate back to half of before', () => rate.backTo(before / 2, healedAt), RECOVERY_BOUND_SEC * 1000, 100).catch(() => null);
      await waitFor('every id acked', () => rate.acked() === SPOUTS * messages, 240_000, 250).catch(() => undefined);
      const unacked = SPOUTS * messages - rate.acked();
      const sink = readSinkIds(dir);
      let lost = 0;
      for (let t = 0; t < SPOUTS; t++) for (let n = 0; n < messages; n++) if (!sink.has(t * 1_000_000 + n)) lost++;
      let delivered = 0;
      for (const k of sink.values()) delivered += k;
      const duplicates = delivered - sink.size;
      const result: TrialResult = { trial: title, recoverySec, lost, duplicates, delivered, ...(heldRate !== null && { heldRatio: heldRate / before }) };
      results.push(result);
      process.stdout.write(`      ${title}: ack rate before ${before.toFixed(1)}/s, during the fault's second half ${heldRate?.toFixed(1) ?? '?'}/s, recovery ${recoverySec === null ? 'never' : `${recoverySec.toFixed(1)} s`}, lost ${lost}, unacked ${unacked}, duplicates ${duplicates}, delivered ${delivered}\n`);
      assert.equal(lost, 0, 'ids that never reached the sink');
      assert.equal(unacked, 0, 'ids never acked to their spout');
      assert.ok(recoverySec !== null, `the ack rate was not back to half of ${before.toFixed(1)}/s within ${RECOVERY_BOUND_SEC} s of the heal`);
      assert.ok(duplicates <= DUPLICATE_BOUND, `${duplicates} duplicates, more than 2 × spout tasks × pending = ${DUPLICATE_BOUND}`);
      return result;
    } finally {
      rate.stop();
    }
  };

  it('C cut off from A and B for 15 s (core)', async () => {
    await trial('C cut off from A and B, 15 s', 'p-isolated', 15_000, (l) => l.cut('c', ['a', 'b', l.gateway]));
  });

  it('C cut off from A and B for 30 s', async () => {
    await trial('C cut off from A and B, 30 s', 'p-isolated-30', 30_000, (l) => l.cut('c', ['a', 'b', l.gateway]));
  });

  it('C cut off from A only for 30 s', async () => {
    await trial('C cut off from A only (reaches B), 30 s', 'p-no-zk', 30_000, (l) => l.cut('c', ['a']));
  });

  /**
   * Nothing is reassigned here (both nodes keep their sessions), so no fence applies: each side's spouts go on
   * emitting, and every tree that needs the other side times out and is replayed every message timeout for the whole
   * cut, each replay queued towards the other side. What the healed link releases is dropped as stale where its trees
   * started longer ago than the timeout plus the margin (worker/fencing/stale-tuples.ts): 1 536 duplicates before
   * that, 191 after (docs/faults.md).
   */
  it('B and C cut from each other for 30 s, both reach A', async () => {
    await trial('B↔C cut, both reach A, 30 s', 'p-split', 30_000, (l) => l.cut('c', ['b']));
  });

  it('C can send to A but not receive from it, 30 s', async () => {
    await trial('C sends to A but does not receive from it, 30 s', 'p-one-way', 30_000, (l) => l.cutInbound('c', ['a']));
  });

  /**
   * Not a partition: a bad link. Everything C sends (to A's ZooKeeper and nimbus, and to B's worker) waits 200 ± 50 ms
   * and 5 % of it is lost, for 60 s (netem's `delay 200ms 50ms loss 5%`, made with an NFQUEUE delayer: this kernel has
   * no netem). Sessions (4 s timeout) and heartbeats survive it, so nothing is reassigned; TCP retransmits what is
   * lost, and with 200 ids in flight per spout task the acks keep pace: the ack rate must hold, not merely recover.
   */
  it('C on a slow, lossy link (200 ± 50 ms, 5 % loss) for 60 s', async function () {
    const reason = slowLinkUnavailableReason();
    if (reason) {
      process.stdout.write(`      skipped: ${reason}\n`);
      this.skip();
    }
    // 20 ids/s per spout task through 5 s before, 60 s of fault and ~20 s after.
    const result = await trial('C on a 200 ± 50 ms link losing 5 %, 60 s', 'p-slow-link', 60_000, (l) => l.degrade('c', { delayMs: 200, jitterMs: 50, loss: 0.05 }), 1_800);
    const counts = await lab!.delayerCounts('c');
    process.stdout.write(`      the delayer on C: ${counts ? `${counts.delayed} packets delayed, ${counts.dropped} dropped` : 'printed no counts'}\n`);
    assert.ok(counts && counts.delayed > 0 && counts.dropped > 0, 'the slow link was in force (the delayer held and dropped packets)');
    assert.ok(result.heldRatio !== undefined && result.heldRatio >= 0.5, `the ack rate during the fault fell to ${result.heldRatio?.toFixed(2)}× of before`);
  });
});
