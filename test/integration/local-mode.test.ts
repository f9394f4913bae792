/**
 * Local mode end to end: real worker child processes over ZeroMQ, the
 * in-memory store over IPC, the same nimbus/supervisor code as a cluster.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';
import { untilAcked } from '../helpers/until-acked.js';
import { SENTENCES } from '../../examples/word-count/index.js';
import type { RunSummary } from '../../cli/run-summary.js';
import { formatSummary } from '../../cli/run-summary-format.js';
import type { WorkerLogLine } from '../../cli/worker-log-tail.js';
import type { TypeCheckResult } from '../../cli/type-check.js';

function readLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

describe('local mode (multi-process)', function () {
  this.timeout(240_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-local-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('counts words exactly with 2 worker processes', async () => {
    const out = join(dir, 'counts.jsonl');
    const perSpout = 300;
    const summary = await runLocal({
      module: join(PACKAGE_ROOT, 'examples/word-count'),
      ...untilAcked(2 * perSpout),
      overrides: { 'topology.workers': 2, 'wordcount.sentences': perSpout, 'wordcount.output': out, 'wordcount.parallelism.spout': 2 },
    });
    assert.equal(summary.workers, 2);
    const expected = new Map<string, number>();
    for (let task = 0; task < 2; task++) {
      for (let id = 0; id < perSpout; id++) {
        for (const w of SENTENCES[(id + task) % SENTENCES.length]!.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1);
      }
    }
    const actual = new Map<string, number>();
    for (const { counts } of readLines<{ counts: Record<string, number> }>(out)) {
      for (const [w, n] of Object.entries(counts)) {
        assert.equal(actual.has(w), false, `word "${w}" counted by two tasks`);
        actual.set(w, n);
      }
    }
    assert.deepEqual(Object.fromEntries([...actual].sort()), Object.fromEntries([...expected].sort()));
    assert.equal(summary.acked, 2 * perSpout);
    assert.equal(summary.failed, 0);
    assert.ok(summary.components.count!.executed > 0);
  });

  it('after kill -9 of a worker, the summary counts every process of it, says it crashed and how, and keeps the checkpoint spout apart', async () => {
    const messages = 2000;
    const first = 1200;
    let killed: number | null = null;
    const summary = await runLocal({
      module: join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'crash-summary-topology.js'),
      overrides: { 'crash.dir': dir, 'crash.messages': messages, 'crash.first': first },
      durationSec: 180,
      drainSec: 2,
      until: (s) => {
        // Once the first process's acks are in a heartbeat this run read, and it has nothing in flight: kill -9.
        if (killed === null && s.acked >= first) {
          killed = Number(readFileSync(join(dir, 'spout.pid'), 'utf8'));
          process.kill(killed, 'SIGKILL');
        }
        return killed !== null && s.acked >= messages;
      },
    });
    assert.ok(killed !== null, 'the spout\'s worker was killed');
    const acked = readFileSync(join(dir, 'spout-0.acked'), 'utf8').split('\n').filter(Boolean);
    assert.equal(new Set(acked).size, messages, 'the spout acked every id (its own record)');
    assert.deepEqual([summary.spoutEmitted, summary.acked, summary.failed], [messages, messages, 0], 'the headline counts both processes of the spout (before: the restarted one alone)');
    assert.equal(summary.components.ids!.acked, messages);
    assert.ok(summary.system?.__checkpointspout, 'the checkpoint spout reported apart');
    assert.ok(summary.system!.__checkpointspout!.acked > 0);
    assert.deepEqual([summary.workers, summary.incarnations], [2, 3]);
    const crash = summary.crashes?.[0];
    assert.ok(crash, 'the crash is in the summary');
    assert.deepEqual([crash.deaths, crash.lastExit.signal, crash.components.includes('ids')], [1, 'SIGKILL', true]);
    assert.match(formatSummary(summary), /\n {2}worker \S+ \([^)]*ids[^)]*\) crashed once, last killed by SIGKILL, and was restarted/);
  });

  it('shows a throwing bolt: its warnings streamed, failed counted alike in the headline and the table, last error, worker logs kept where asked', async () => {
    const lines: WorkerLogLine[] = [];
    const logs = join(dir, 'kept-logs');
    const summary = await runLocal({
      module: join(PACKAGE_ROOT, 'test/fixtures/always-throwing-bolt-topology'),
      // Until every tuple failed, not 2 s: on a busy machine the worker may start after 2 s, its spout then deactivated.
      durationSec: 60,
      until: (s) => (s.components.numbers?.failed ?? 0) >= 200,
      overrides: { 'throwing.messages': 200 },
      onWorkerLog: (l) => lines.push(l),
      keepLogsIn: logs,
    });
    {
      assert.equal(summary.components.numbers!.failed, 200);
      assert.equal(summary.failed, summary.components.numbers!.failed, 'headline and table disagree');
      const last = summary.components.typo!.lastError;
      assert.ok(last, 'no last error for the throwing bolt');
      assert.match(last.error, /getIntegerByFeild is not a function/);
      assert.match(last.error, /always-throwing-bolt-topology/, 'the stack should point at the topology module');
      assert.equal(last.port > 0, true);
      const streamed = lines.filter((l) => l.component === 'typo' && /execute threw/.test(l.msg));
      assert.ok(streamed.length > 0, 'the error was not streamed from the worker log');
      // The worker's own log is rate-limited per message: not 200 lines with stacks.
      assert.ok(streamed.length <= 10, `${streamed.length} identical warnings reached the worker log`);
      // The worker logs were copied out of the run's temp dir before it was removed: the bolt's error is in them.
      assert.equal(summary.logsDir, logs);
      const files = readdirSync(logs, { recursive: true }).map(String).filter((f) => f.endsWith('.log'));
      assert.ok(files.length > 0, 'no worker log was kept');
      assert.ok(files.some((f) => /execute threw/.test(readFileSync(join(logs, f), 'utf8'))), 'the kept logs do not hold the error');
    }
  });

  it('runs a TypeScript module from outside the package, named after its directory, with stack traces at its .ts lines and its type errors as warnings', async () => {
    const mod = join(dir, 'mytopo');
    mkdirSync(mod);
    writeFileSync(
      join(mod, 'bolt.ts'),
      [
        "import { BasicBolt, type Tuple } from 'hstorm';",
        'export class Picky extends BasicBolt {',
        '  execute(t: Tuple): void {',
        "    const n: number = t.getNumberByField('n');",
        '    if (n % 50 === 7) throw new Error(`picky about ${n}`);',
        '  }',
        '}',
      ].join('\n'),
    );
    writeFileSync(
      join(mod, 'index.ts'),
      [
        "import { TopologyBuilder, Spout, type SpoutOutputCollector, type OutputFieldsDeclarer, type Conf, type TopologyContext } from 'hstorm';",
        "import { Picky } from './bolt.js';",
        'class Numbers extends Spout {',
        '  private c!: SpoutOutputCollector;',
        '  private n = 0;',
        '  override open(_conf: Conf, _ctx: TopologyContext, c: SpoutOutputCollector): void { this.c = c; }',
        '  nextTuple(): void { if (this.n < 100) this.c.emit([this.n], { messageId: this.n++ }); }',
        "  declareOutputFields(d: OutputFieldsDeclarer): void { d.declare(['n']); }",
        '}',
        'export default () => {',
        '  const b = new TopologyBuilder();',
        "  b.setSpout('numbers', () => new Numbers(), 1);",
        "  b.setBolt('picky', () => new Picky(), 1).shuffleGrouping('numbers');",
        '  return b.createTopology({});',
        '};',
        '// A type error tsc sees and esbuild does not: reported, and the run goes on.',
        "export const label: string = 42;",
      ].join('\n'),
    );
    const checks: TypeCheckResult[] = [];
    const summary = await runLocal({ module: join(mod, 'index.ts'), durationSec: 60, until: (s) => s.acked + s.failed >= 100, overrides: {}, onTypeCheck: (r) => checks.push(r) });
    {
      assert.equal(checks.length, 1);
      assert.deepEqual(
        checks[0]!.diagnostics.map((d) => [d.file?.endsWith('index.ts'), d.line, d.code]),
        [[true, 17, 2322]],
      );
      assert.equal(summary.typeCheck?.diagnostics.length, 1);
      assert.equal(summary.topology, 'mytopo');
      assert.equal(summary.acked, 98);
      assert.equal(summary.failed, 2);
      const last = summary.components.picky!.lastError;
      assert.ok(last);
      assert.match(last.error, /picky about (7|57)/);
      // Line 5 column 27 of bolt.ts, through the inline source map — not a line of the compiled bundle.
      assert.match(last.error, new RegExp(`${join(mod, 'bolt.ts').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:5:\\d+`));
    }
  });

  it('is at-least-once: a bolt failing ~10% still gets every message acked', async () => {
    const out = join(dir, 'flaky.jsonl');
    const messages = 400;
    await runLocal({
      module: join(PACKAGE_ROOT, 'test/fixtures/flaky-topology'),
      ...untilAcked(messages),
      overrides: { 'flaky.messages': messages, 'flaky.output': out, 'flaky.failRate': 0.1, 'topology.message.timeout.secs': 3 },
      drainSec: 8,
    });
    const lines = readLines<{ role: string; emitted?: number; acked?: number; failures?: number; ids?: number[] }>(out);
    const spout = lines.find((l) => l.role === 'spout')!;
    assert.equal(spout.emitted, messages);
    assert.equal(spout.acked, messages, 'every spout message is eventually acked');
    assert.ok(spout.failures! > 0, 'some tuples failed and were replayed');
    const sinkIds = new Set(lines.filter((l) => l.role === 'sink').flatMap((l) => l.ids ?? []));
    assert.equal(sinkIds.size, messages);
  });

  it('holds a fast spout back behind a 100× slower bolt: bounded memory, nothing lost', async function () {
    const out = join(dir, 'slow.jsonl');
    const rss: number[] = [];
    let last: RunSummary | null = null;
    await runLocal({
      module: join(PACKAGE_ROOT, 'test/fixtures/slow-bolt-topology'),
      durationSec: 30,
      overrides: { 'slow.output': out, 'slow.spin.ms': 0.1 },
      drainSec: 15,
      onProgress: (s) => {
        last = s;
        if (s.workers > 0) rss.push(s.maxWorkerRssMB);
      },
    });
    const lines = readLines<{ role: string; emitted?: number; executed?: number }>(out);
    const emitted = lines.find((l) => l.role === 'spout')!.emitted!;
    const executed = lines.find((l) => l.role === 'bolt')!.executed!;
    assert.ok(emitted > 1000, `spout emitted ${emitted}`);
    assert.equal(executed, emitted, 'every emitted tuple reached the bolt');
    assert.ok(last !== null);
    assert.ok(rss.length >= 10, 'memory was sampled');
    // What an unbounded queue would hold: the spout emits ~10x faster than the bolt executes, 1 KB a tuple, so
    // gigabytes in 30 s. What the design bounds: the bolt's queue, plus what was parked for it — the rest of the
    // frame that filled it where its worker stops reading, or what was in flight until the spout's worker heard
    // where it reads on (docs/architecture.md) — kept as frames, not tuples. When those were read in as tuples,
    // ~36 000 at start and 4 000-10 000 per cycle after, the bolt worker's RSS rose and fell by up to ~250 MB
    // (V8 lets its old generation grow to a few times its live size before collecting); the bound stays that loose.
    const growth = Math.max(...rss.slice(2)) - rss[2]!;
    assert.ok(growth < 400, `RSS grew by ${growth} MB`);
  });
});
