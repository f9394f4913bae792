/**
 * The window manager (topology-sdk/internal/window-manager.ts) against a
 * reference model (test/helpers/window-model.ts) written from the definitions
 * alone (docs/windowing.md):
 * random window and slide units and sizes, random input — processing time
 * with clock steps between tuples, event time with out-of-order and late
 * stamps between watermark steps — and after each step the harness does what
 * the windowed bolt does: take every due window, then evict. The windows,
 * their new and expired parts, the late items and the acks must be exactly
 * what the model says. No clock: time is the numbers the test passes.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { WindowManager, type ManagedWindow, type WindowManagerSpec } from '../../../topology-sdk/internal/window-manager.js';
import type { WindowSizeDef } from '../../../common/topology-def.js';
import { modelWindows } from '../../helpers/window-model.js';

interface Ev {
  id: number;
  ts: number;
}

type Op = { kind: 'add'; dt: number } | { kind: 'advance'; dt: number };

interface Run {
  windows: ManagedWindow<Ev>[];
  /** Acks in order, each with the number of windows evaluated before it. */
  acks: { ev: Ev; after: number }[];
  late: Ev[];
  released: Ev[];
  manager: WindowManager<Ev>;
}

/** Drives the manager as the windowed bolt does: after every step, every due window, then eviction. */
function drive(spec: WindowManagerSpec, input: { ev: Ev | null; advanceTo: number | null }[]): Run {
  const m = new WindowManager<Ev>(spec);
  const run: Run = { windows: [], acks: [], late: [], released: [], manager: m };
  const step = () => {
    for (let w = m.nextWindow(); w; w = m.nextWindow()) run.windows.push(w);
    for (const ev of m.evict()) run.acks.push({ ev, after: run.windows.length });
  };
  for (const s of input) {
    if (s.ev) {
      if (m.add(s.ev, s.ev.ts) === 'late') run.late.push(s.ev);
      else run.released.push(s.ev);
    }
    if (s.advanceTo !== null) m.advance(s.advanceTo);
    step();
  }
  return run;
}

/** The windows the definitions give for items in release order (stamp order), up to the final watermark. */
function model(spec: WindowManagerSpec, items: readonly Ev[], finalWm: number): Ev[][] {
  return modelWindows(spec, items, finalWm);
}

const sizeArb = (max: number): fc.Arbitrary<WindowSizeDef> =>
  fc.oneof(
    fc.integer({ min: 1, max: 8 }).map((value) => ({ unit: 'count' as const, value })),
    fc.integer({ min: 1, max }).map((value) => ({ unit: 'ms' as const, value })),
  );

const specArb = (eventTime: boolean) => fc.record({ length: sizeArb(40), slide: sizeArb(25), eventTime: fc.constant(eventTime) });

const ids = (w: readonly Ev[]) => w.map((e) => e.id);

/** Every window's new and expired are the differences with the previous one; nothing is acked while a later window holds it. */
function checkRun(run: Run, expected: Ev[][]): void {
  assert.deepEqual(run.windows.map((w) => ids(w.items)), expected.map(ids), 'the windows, in order');
  let prev: Ev[] = [];
  for (const w of run.windows) {
    assert.deepEqual(ids(w.added), ids(w.items.filter((e) => !prev.includes(e))), 'new: in this window, not in the last');
    assert.deepEqual(ids(w.expired), ids(prev.filter((e) => !w.items.includes(e))), 'expired: in the last window, not in this');
    assert.ok(w.startTs <= w.endTs, 'start ≤ end');
    prev = w.items;
  }
  const acked = new Set<number>();
  for (const { ev, after } of run.acks) {
    assert.ok(!acked.has(ev.id), `item ${ev.id} acked twice`);
    acked.add(ev.id);
    const later = run.windows.slice(after).findIndex((w) => w.items.includes(ev));
    assert.equal(later, -1, `item ${ev.id} acked before window ${after + later} that holds it`);
  }
  for (const e of run.late) assert.ok(!acked.has(e.id), 'a late item is the bolt\'s to ack, not the manager\'s');
  assert.equal(run.manager.held, run.released.length - acked.size, 'held = added − acked');
}

describe('WindowManager against a reference model', () => {
  it('processing time: every window, new and expired part and ack, for any units, sizes and input', () => {
    fc.assert(
      fc.property(
        specArb(false),
        fc.integer({ min: 0, max: 1000 }),
        fc.array(fc.oneof(fc.record({ kind: fc.constant('add' as const), dt: fc.integer({ min: 0, max: 6 }) }), fc.record({ kind: fc.constant('advance' as const), dt: fc.integer({ min: 1, max: 30 }) })), { maxLength: 80 }),
        (spec, start, ops: Op[]) => {
          let now = start;
          let id = 0;
          const input = ops.map((op) => {
            now += op.dt;
            return op.kind === 'add' ? { ev: { id: id++, ts: now }, advanceTo: null } : { ev: null, advanceTo: now };
          });
          const run = drive(spec, input);
          assert.equal(run.late.length, 0, 'nothing is late in processing time');
          // The clock is the watermark: every add and every step moved it to `now`.
          checkRun(run, model(spec, run.released, ops.length > 0 ? now : -Infinity));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('event time: out-of-order stamps, late items refused, windows as if the input had come in order', () => {
    fc.assert(
      fc.property(
        specArb(true),
        fc.array(fc.oneof(fc.record({ kind: fc.constant('add' as const), dt: fc.integer({ min: 0, max: 120 }) }), fc.record({ kind: fc.constant('advance' as const), dt: fc.integer({ min: 1, max: 40 }) })), { maxLength: 80 }),
        (spec, ops: Op[]) => {
          let wm = 0;
          let advanced = false;
          let id = 0;
          const onTime: Ev[] = [];
          const late: Ev[] = [];
          const input = ops.map((op) => {
            if (op.kind === 'advance') {
              wm += op.dt;
              advanced = true;
              return { ev: null, advanceTo: wm };
            }
            // Stamps scattered around the watermark: some before it (late), most after, out of order.
            const ev = { id: id++, ts: wm - 20 + op.dt };
            (advanced && ev.ts < wm ? late : onTime).push(ev);
            return { ev, advanceTo: null };
          });
          const run = drive(spec, input);
          assert.deepEqual(ids(run.late), ids(late), 'late: stamped before the watermark when it arrived');
          // The rest joins windows in stamp order (ties in arrival order: a stable sort) once the watermark passed it.
          const byStamp = onTime.filter((e) => advanced && e.ts < wm).sort((a, b) => a.ts - b.ts);
          checkRun(run, model(spec, byStamp, advanced ? wm : -Infinity));
        },
      ),
      { numRuns: 600 },
    );
  });

  it("event time: Storm's worked example (20 s window, 10 s slide) evaluates its windows, jumping the gap", () => {
    const m = new WindowManager<string>({ length: { unit: 'ms', value: 20_000 }, slide: { unit: 'ms', value: 10_000 }, eventTime: true });
    const at = (h: number, min: number, s: number) => ((h * 60 + min) * 60 + s) * 1000;
    const add = (name: string, ts: number) => assert.equal(m.add(name, ts), 'added');
    const drain = () => {
      const out: string[] = [];
      for (let w = m.nextWindow(); w; w = m.nextWindow()) out.push(`${w.items.join(',')} @${(w.endTs - at(6, 0, 0)) / 1000}`);
      return out;
    };
    [3, 5, 7, 18, 26, 36].forEach((s, i) => add(`e${i + 1}`, at(6, 0, s)));
    m.advance(at(6, 0, 31));
    assert.deepEqual(drain(), ['e1,e2,e3 @10', 'e1,e2,e3,e4 @20', 'e4,e5 @30']);
    m.evict();
    [25, 26, 27, 39].forEach((s, i) => add(`e${i + 7}`, at(8, 0, s)));
    m.advance(at(8, 0, 34));
    assert.deepEqual(drain(), ['e5,e6 @40', 'e6 @50', `e7,e8,e9 @${(at(8, 0, 30) - at(6, 0, 0)) / 1000}`]);
    assert.equal(m.add('late', at(8, 0, 33)), 'late');
    assert.equal(m.add('on time', at(8, 0, 34)), 'added');
  });

  it('a tumbling count window acks each window right after it, and a failed window leaves no trace in the next', () => {
    const m = new WindowManager<number>({ length: { unit: 'count', value: 3 }, slide: { unit: 'count', value: 3 }, eventTime: false });
    const windows: number[][] = [];
    const acked: number[] = [];
    for (let i = 0; i < 9; i++) {
      m.add(i, 100 + i);
      for (let w = m.nextWindow(); w; w = m.nextWindow()) {
        windows.push(w.items);
        if (i === 5) m.remove(new Set(w.items)); // the bolt failed this window's tuples
      }
      acked.push(...m.evict());
    }
    assert.deepEqual(windows, [[0, 1, 2], [3, 4, 5], [6, 7, 8]]);
    assert.deepEqual(acked, [0, 1, 2, 6, 7, 8], 'failed items are not acked');
    assert.equal(m.held, 0);
  });

  it('a sliding time window holds an item no longer than length + slide', () => {
    const m = new WindowManager<number>({ length: { unit: 'ms', value: 30 }, slide: { unit: 'ms', value: 10 }, eventTime: false });
    const ackedAt = new Map<number, number>();
    for (let t = 0; t <= 200; t++) {
      if (t < 100) m.add(t, t);
      m.advance(t);
      while (m.nextWindow());
      for (const x of m.evict()) ackedAt.set(x, t);
    }
    assert.equal(ackedAt.size, 100);
    for (const [x, t] of ackedAt) assert.ok(t - x <= 40, `item ${x} held ${t - x} ms`);
  });

  it('position() is plain data, and a manager built from it continues the same grid and count', () => {
    const spec: WindowManagerSpec = { length: { unit: 'ms', value: 20 }, slide: { unit: 'ms', value: 10 }, eventTime: true };
    const a = new WindowManager<number>(spec);
    for (const ts of [3, 12, 17]) a.add(ts, ts);
    a.advance(15);
    while (a.nextWindow());
    a.evict();
    const pos = a.position();
    assert.deepEqual(JSON.parse(JSON.stringify(pos)), pos);
    const b = new WindowManager<number>(spec, pos);
    assert.equal(b.add(14, 14), 'late', 'the watermark came back');
    b.add(25, 25);
    b.advance(40);
    const ends: number[] = [];
    for (let w = b.nextWindow(); w; w = b.nextWindow()) ends.push(w.endTs);
    assert.deepEqual(ends, [30, 40], 'the grid goes on after 10, where the first manager stopped');
  });

  it('an item added as not counting is in windows but not among the slide (a stateful window\'s evaluated replay), in processing and event time', () => {
    for (const eventTime of [false, true]) {
      const m = new WindowManager<number>({ length: { unit: 'count', value: 5 }, slide: { unit: 'count', value: 3 }, eventTime });
      const windows: number[][] = [];
      const add = (id: number, counts: boolean) => {
        m.add(id, id, counts);
        if (eventTime) m.advance(id + 1);
        for (let w = m.nextWindow(); w; w = m.nextWindow()) windows.push(w.items);
        m.evict();
      };
      // Replays 700 and 701 (evaluated before a restart), then 702 … 707 new: windows end at 704 and 707, as without the crash.
      add(700, false);
      add(701, false);
      for (let id = 702; id <= 707; id++) add(id, true);
      assert.deepEqual(windows, [[700, 701, 702, 703, 704], [703, 704, 705, 706, 707]], eventTime ? 'event time' : 'processing time');
    }
  });
});
