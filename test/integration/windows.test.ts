/**
 * Windowed bolts in real worker processes (local mode: nimbus, a supervisor,
 * two workers, ZeroMQ between them) on a known input
 * (test/fixtures/window-topology.ts): count windows and event-time windows
 * must be exactly those of the reference model (test/helpers/window-model.ts)
 * — out-of-order input included, late tuples on the late stream or dropped —
 * and processing-time windows, whose cut depends on when tuples arrive, must
 * put every tuple in exactly length/slide windows. Each variant's spout
 * counts its acks: a tuple is acked once it left its last window, and a
 * tuple a window may still take is not.
 *
 * Then the window bounds: `hstorm local`, `submit` and `schedule` refuse a
 * count window larger than topology.max.spout.pending with one message.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';
import type { RunSummary } from '../../cli/run-summary.js';
import { formatWindow } from '../../cli/run-summary-format.js';
import { modelWindows } from '../helpers/window-model.js';
import { untilAcked } from '../helpers/until-acked.js';
import { readPausedWindows } from '../fixtures/paused-source-topology.js';
import type { WindowValidationError } from '../../common/errors.js';
import { FLUSH_ID, VARIANTS, emitOrder, lateIds, tsOf, type Variant, type WindowRecord } from '../fixtures/window-topology.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'window-topology.js');
const N = 200;

interface LateRecord {
  variant: Variant;
  late: { values: [number, number]; sourceComponent: string };
}

function read(dir: string): { windows: Map<Variant, WindowRecord[]>; late: LateRecord[] } {
  let text = '';
  try {
    text = readFileSync(join(dir, 'windows.jsonl'), 'utf8');
  } catch {
    /* nothing recorded yet */
  }
  const windows = new Map<Variant, WindowRecord[]>(VARIANTS.map((v) => [v, []]));
  const late: LateRecord[] = [];
  for (const line of text.split('\n').filter(Boolean)) {
    const r = JSON.parse(line) as WindowRecord | LateRecord;
    if ('late' in r) late.push(r);
    else windows.get(r.variant)!.push(r);
  }
  return { windows, late };
}

const item = (id: number) => ({ id, ts: tsOf(id) });
const ids = (w: readonly { id: number }[]) => w.map((e) => e.id);

/** What each variant must evaluate, where the input decides it alone. */
function expected(): Partial<Record<Variant, number[][]>> {
  const arrival = emitOrder(N).map(item);
  const byStamp = [...arrival].sort((a, b) => a.ts - b.ts);
  const flushWm = tsOf(N) + 10_000 - 40;
  return {
    'count-tumbling': modelWindows({ length: { unit: 'count', value: 5 }, slide: { unit: 'count', value: 5 } }, arrival, Infinity).map(ids),
    'count-sliding': modelWindows({ length: { unit: 'count', value: 6 }, slide: { unit: 'count', value: 3 } }, arrival, Infinity).map(ids),
    'event-sliding': modelWindows({ length: { unit: 'ms', value: 100 }, slide: { unit: 'ms', value: 50 } }, byStamp, flushWm).map(ids),
    'event-count': modelWindows({ length: { unit: 'count', value: 4 }, slide: { unit: 'count', value: 4 } }, byStamp, Infinity).map(ids),
  };
}

/** Acks each variant's spout must reach: count-sliding keeps the last 5 (a window still to come may take them); event time acks late ones too, never the flush tuple. */
const ACKED: Record<Variant, number> = { 'count-tumbling': N, 'count-sliding': N - 5, 'time-tumbling': N, 'time-sliding': N, 'event-sliding': N + 2, 'event-count': N + 2 };

function timesSeen(records: readonly WindowRecord[]): Map<number, number> {
  const seen = new Map<number, number>();
  for (const r of records) for (const id of r.ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  return seen;
}

function complete(dir: string, s: RunSummary): boolean {
  const { windows, late } = read(dir);
  const exp = expected();
  for (const [v, w] of Object.entries(exp) as [Variant, number[][]][]) if (windows.get(v)!.length < w.length) return false;
  for (const v of ['time-tumbling', 'time-sliding'] as const) if (timesSeen(windows.get(v)!).size < N) return false;
  return late.length >= 2 && VARIANTS.every((v) => (s.components[`${v}-ids`]?.acked ?? 0) >= ACKED[v]);
}

function hstorm(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [join(PACKAGE_ROOT, 'bin', 'hstorm.js'), ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('windowed bolts in worker processes', function () {
  this.timeout(240_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-windows-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('count, time and event-time windows, tumbling and sliding: exactly the expected windows, late tuples routed, acks when tuples leave their last window', async () => {
    const s = await runLocal({
      module: FIXTURE,
      overrides: { 'window.dir': dir, 'window.ids': N, 'window.rate': 400 },
      durationSec: 180,
      drainSec: 1,
      until: (live) => complete(dir, live),
    });
    const { windows, late } = read(dir);
    const exp = expected();
    for (const [v, w] of Object.entries(exp) as [Variant, number[][]][]) {
      assert.deepEqual(windows.get(v)!.map((r) => r.ids), w, `${v}: the windows of the model, in order`);
    }
    // Processing time: where the grid cuts depends on arrival times, but each tuple is in length/slide windows.
    for (const [v, length, slide] of [['time-tumbling', 200, 200], ['time-sliding', 300, 100]] as const) {
      const seen = timesSeen(windows.get(v)!);
      assert.equal(seen.size, N, `${v}: every id in some window`);
      for (const [id, k] of seen) assert.equal(k, length / slide, `${v}: id ${id} in ${k} windows`);
      for (const r of windows.get(v)!) assert.deepEqual([r.end % slide, r.end - r.start], [0, length], `${v}: a window on the grid`);
    }
    assert.ok(!windows.get('event-sliding')!.some((r) => r.ids.includes(FLUSH_ID)), 'the flush tuple closes windows, is in none');
    assert.deepEqual(
      late.map((l) => [l.variant, l.late.values[0], l.late.values[1], l.late.sourceComponent]).sort(),
      lateIds(N).map((id) => ['event-sliding', id, 5, 'event-sliding-ids']),
      'each late tuple once, on the late stream, as sent',
    );
    for (const v of VARIANTS) {
      const c = s.components[`${v}-ids`]!;
      assert.deepEqual([c.acked, c.failed], [ACKED[v], 0], `${v}: acked and failed`);
      // The heartbeat's window section (what describe and the UIs show) counts the same windows and late tuples.
      const w = s.components[v]!.window![0]!;
      assert.deepEqual(
        [w.windows, w.failedWindows, w.lateDropped, w.lateRouted],
        [windows.get(v)!.length, 0, v === 'event-count' ? 2 : 0, v === 'event-sliding' ? 2 : 0],
        `${v}: the window section`,
      );
    }
    assert.match(formatWindow(s.components['event-sliding']!.window!), /window: sliding 100 ms every 50 ms, event time \(ts\), lag 40 ms, late → late; \d+ windows, [\d.]+ tuples each \(max \d+\), 1 held, late tuples 0 dropped \/ 2 routed, watermark lag 40 ms/);
  });

  it('event time with the default settings: a source that pauses 8 s and resumes with continuing timestamps has none of its tuples dropped as late', async () => {
    const pauseDir = join(dir, 'pause');
    mkdirSync(pauseDir);
    const ids = 60;
    const s = await runLocal({
      module: join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'paused-source-topology.js'),
      overrides: { 'pause.dir': pauseDir, 'pause.ids': ids, 'pause.after': 29, 'pause.ms': 8000, 'pause.rate': 20 },
      // Every data tuple acked (the flush tuple stays in a window still to come) and every window recorded.
      durationSec: 120,
      drainSec: 1,
      until: (live) => live.acked >= ids && readPausedWindows(pauseDir).length >= ids / 10,
    });
    const w = s.components.win!.window![0]!;
    assert.equal(w.lateDropped, 0, 'no on-time tuple dropped as late (before: 30, the whole second half)');
    // Ten ids a window (ts = id × 100), before the pause and after it alike.
    const want = Array.from({ length: ids / 10 }, (_, k) => ({ start: k * 1000, ids: Array.from({ length: 10 }, (_, i) => k * 10 + i) }));
    assert.deepEqual(readPausedWindows(pauseDir), want, 'every window whole');
    assert.deepEqual([s.acked, s.failed], [ids, 0]);
  });

  it('a count window downstream of another: refused below what the path holds in flight, and the advised bound runs 100 tuples to the end, all acked', async () => {
    const module = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'chained-windows-topology.js');
    const messages = 100;
    const overrides = { 'cw.messages': messages, 'cw.first': 10, 'cw.second': 5, 'topology.message.timeout.secs': 15 };
    // Each window alone fits in 20; together 5 windows of 10 are in flight before "second" fires.
    let needed = 0;
    await assert.rejects(runLocal({ module, overrides: { ...overrides, 'topology.max.spout.pending': 20 }, durationSec: 30 }), (e: WindowValidationError) => {
      assert.equal(e.code, 'HSTORM_ERR_TOPOLOGY_WINDOW');
      assert.equal(e.component, 'second');
      assert.match(e.message, /Raise topology\.max\.spout\.pending to at least 50 /);
      needed = e.limit!.needed;
      return true;
    });
    const s = await runLocal({ module, overrides: { ...overrides, 'topology.max.spout.pending': needed }, ...untilAcked(messages), drainSec: 1 });
    assert.deepEqual([s.acked, s.failed], [messages, 0], `at the advised topology.max.spout.pending = ${needed}: acked and failed`);
    assert.equal(s.components.second!.window![0]!.windows, messages / 50, 'every window of "second" fired');
  });

  it('local, submit and schedule refuse a count window larger than topology.max.spout.pending, with one message', () => {
    const cluster = join(dir, 'cluster.json');
    writeFileSync(cluster, JSON.stringify({ supervisors: [{ id: 's1', host: 'h', ports: [6700, 6701], cpus: 4, memoryMB: 8192 }] }));
    const conf = ['-c', 'window.variants=[count-tumbling]', '-c', 'window.count.length=50', '-c', 'topology.max.spout.pending=20', '-c', `window.dir=${dir}`, '-c', 'window.ids=10', '--json'];
    const runs = {
      local: hstorm(['local', FIXTURE, '--duration', '1', ...conf], dir),
      submit: hstorm(['submit', FIXTURE, '--name', 'w', '-c', 'nimbus.host=127.0.0.1', '-c', 'nimbus.http.port=1', ...conf], dir),
      schedule: hstorm(['schedule', FIXTURE, '--cluster', cluster, ...conf], dir),
    };
    const messages = new Set<string>();
    for (const [cmd, r] of Object.entries(runs)) {
      assert.equal(r.status, 2, `${cmd}: ${r.stderr}`);
      const out = JSON.parse(r.stdout) as { code: string; message: string };
      assert.equal(out.code, 'HSTORM_ERR_TOPOLOGY_WINDOW', `${cmd}: ${out.message}`);
      messages.add(out.message);
    }
    assert.equal(messages.size, 1, `one message: ${[...messages].join(' | ')}`);
    assert.match(
      [...messages][0]!,
      /^bolt "count-tumbling": its count window holds 50 tuples, more than topology\.max\.spout\.pending = 20 lets be in flight: .* Raise topology\.max\.spout\.pending to at least 50 .* or shrink the window$/,
    );
  });
});
