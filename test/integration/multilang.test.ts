/**
 * Storm's multilang protocol against Storm's own clients: a word-count
 * topology whose spout and split bolt are Python (storm.py) or Node (storm.js)
 * subprocesses, in local mode (real worker processes over ZeroMQ). Exact
 * counts; then a bolt subprocess that crashes, writes garbage and hangs: its
 * pending tuples are failed and replayed, it is restarted, nothing is lost;
 * and a spout subprocess that crashes is restarted.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { silentLogger } from '../../common/logger.js';
import { loadConfiguredTopology, resolveModulePath } from '../../worker/index.js';
import type { ExecutorMetrics, WorkerHeartbeat } from '../../common/storm-base.js';
import { waitFor } from '../helpers/wait-for.js';

const SENTENCES = [
  'the cow jumped over the moon',
  'an apple a day keeps the doctor away',
  'four score and seven years ago',
  'snow white and the seven dwarfs',
  'i am at two with nature',
];

interface CountLine {
  task: number;
  counts: Record<string, number>;
  raw: Record<string, number>;
  pids: number[];
}

interface RunResult {
  counts: Map<string, number>;
  raw: Map<string, number>;
  pids: Set<number>;
  executors: ExecutorMetrics[];
}

function expectedCounts(n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let sid = 0; sid < n; sid++) for (const w of SENTENCES[sid % SENTENCES.length]!.split(' ')) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
}

function sorted(m: Map<string, number>): Record<string, number> {
  return Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)));
}

const executors = (beats: WorkerHeartbeat[]) => beats.flatMap((b) => b.executors);

/** Runs the fixture until the spout has every sentence acked, stops it, and reads what the count bolts wrote. */
async function runUntilAcked(dir: string, sentences: number, overrides: Record<string, unknown>): Promise<RunResult> {
  const output = join(dir, 'counts.jsonl');
  const modulePath = resolveModulePath(join(PACKAGE_ROOT, 'test/fixtures/multilang'), PACKAGE_ROOT);
  const { def, topologyConfig } = await loadConfiguredTopology(modulePath, { 'ml.sentences': sentences, 'ml.output': output, 'ml.fault.dir': dir, ...overrides });
  const cluster = await LocalCluster.start({ log: silentLogger(), portsNeeded: 2 });
  let last: ExecutorMetrics[] = [];
  try {
    const { topologyId } = await cluster.submit('multilang', modulePath, def, topologyConfig);
    await waitFor(
      `all ${sentences} sentences acked by the multilang spout`,
      async () => {
        last = executors(await cluster.heartbeats(topologyId));
        return last.filter((e) => e.component === 'sentences').reduce((n, e) => n + e.acked, 0) >= sentences;
      },
      90_000,
      250,
    );
  } finally {
    await cluster.shutdown();
  }
  const lines = existsSync(output)
    ? readFileSync(output, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as CountLine)
    : [];
  const counts = new Map<string, number>();
  const raw = new Map<string, number>();
  const pids = new Set<number>();
  for (const l of lines) {
    for (const [w, n] of Object.entries(l.counts)) {
      assert.equal(counts.has(w), false, `word "${w}" counted by two tasks`);
      counts.set(w, n);
    }
    for (const [w, n] of Object.entries(l.raw)) raw.set(w, n);
    for (const p of l.pids) pids.add(p);
  }
  return { counts, raw, pids, executors: last };
}

const userGauge = (e: ExecutorMetrics, name: string): number => {
  const g = e.user?.gauges[name];
  return typeof g === 'number' ? g : 0;
};

describe('multilang (Storm ShellBolt / ShellSpout with storm.py and storm.js)', function () {
  this.timeout(150_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-multilang-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  for (const lang of ['python', 'node'] as const) {
    it(`counts words exactly with a ${lang} spout and split bolt`, async () => {
      const n = 150;
      const r = await runUntilAcked(dir, n, { 'ml.lang': lang });
      assert.deepEqual(sorted(r.counts), sorted(expectedCounts(n)));
      // No failures: every word tuple was seen exactly once.
      assert.deepEqual(sorted(r.raw), sorted(expectedCounts(n)));
      const spout = r.executors.filter((e) => e.component === 'sentences');
      assert.equal(spout.reduce((s, e) => s + e.failed, 0), 0);
      const split = r.executors.filter((e) => e.component === 'split');
      assert.equal(split.length, 2);
      assert.equal(r.pids.size, 2, 'one subprocess per split task');
      assert.equal(split.reduce((s, e) => s + userGauge(e, 'multilang.restarts'), 0), 0);
    });
  }

  it('fails and replays the pending tuples of a subprocess that crashes, writes garbage or hangs, and restarts it', async () => {
    const n = 80;
    const r = await runUntilAcked(dir, n, {
      'ml.lang': 'python',
      'ml.split.parallelism': 1,
      'ml.faults': 'crash:10,garbage:30,hang:50',
      'topology.subprocess.timeout.secs': 3,
    });
    // Exact: every (sentence, word) pair counted once, although some were emitted twice (before and after a replay).
    assert.deepEqual(sorted(r.counts), sorted(expectedCounts(n)));
    const spout = r.executors.filter((e) => e.component === 'sentences');
    assert.ok(spout.reduce((s, e) => s + e.failed, 0) >= 3, 'the tuples each dead subprocess held were failed');
    const [split] = r.executors.filter((e) => e.component === 'split');
    assert.ok(split);
    assert.equal(userGauge(split, 'multilang.restarts'), 3);
    assert.equal(r.pids.size, 4, 'the first subprocess and three restarts emitted words');
    const errors = (split.errors ?? []).map((e) => e.error).join('\n');
    assert.match(errors, /exited with code 3/);
    assert.match(errors, /sent garbage on stdout: not JSON: "this line is not a multilang message/);
    assert.match(errors, /subprocess heartbeat timeout/);
    for (const sid of [10, 30, 50]) assert.ok(existsSync(join(dir, `fault-${sid}`)), `fault at sentence ${sid} was injected`);
  });

  it('restarts a spout subprocess that crashes; a spout over a durable source goes on where it stopped', async () => {
    const n = 60;
    const r = await runUntilAcked(dir, n, { 'ml.lang': 'python', 'ml.spout.crash': 25 });
    assert.ok(existsSync(join(dir, 'spout-next.crashed')), 'the spout crashed once');
    const [spout] = r.executors.filter((e) => e.component === 'sentences');
    assert.ok(spout);
    assert.equal(userGauge(spout, 'multilang.restarts'), 1);
    assert.match((spout.errors ?? []).map((e) => e.error).join('\n'), /sentencespout\.py` \(pid \d+\) exited with code 4/);
    // Its in-flight messages were acked through the new process: each sentence emitted and counted exactly once.
    assert.equal(spout.acked, n);
    assert.equal(spout.failed, 0);
    assert.deepEqual(sorted(r.counts), sorted(expectedCounts(n)));
    assert.deepEqual(sorted(r.raw), sorted(expectedCounts(n)));
  });
});
