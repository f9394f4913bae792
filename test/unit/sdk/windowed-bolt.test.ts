/**
 * WindowedBolt as an author meets it (the builder, the definition, the
 * checks at submit) and the windowing bolt the builder wraps it in
 * (topology-sdk/internal/windowed-bolt-executor.ts), driven with a manual
 * clock and a recording collector: anchoring, acking when a tuple leaves its
 * last window, failing a window, waiting for an async window, watermarks,
 * late tuples and idle inputs. No sleeps: time moves when the test says.
 */
import assert from 'node:assert/strict';
import { BasicBolt, Count, Duration, Spout, TimeUnit, TopologyBuilder, WindowedBolt, type BasicOutputCollector, type EmitOptions, type OutputCollector, type OutputFieldsDeclarer, type TupleWindow, type Values, type Tuple, type LateTuple } from 'hstorm';
import { WindowedBoltExecutor } from '../../../topology-sdk/internal/windowed-bolt-executor.js';
import { validateTopology } from '../../../topology-sdk/validate-topology.js';
import { validateWindowBounds } from '../../../topology-sdk/validate-bounds.js';
import { buildConfig } from '../../../common/config/index.js';
import { WindowValidationError } from '../../../common/errors.js';
import type { TopologyDef } from '../../../common/topology-def.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { ManualClock, settle } from '../../helpers/manual-clock.js';

class Source extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id', 'ts']);
  }
}

/** A plain bolt between two windows. */
class Pass extends BasicBolt {
  execute(t: Tuple, out: BasicOutputCollector): void {
    out.emit([t.getValue(0)]);
  }
  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['sum']);
  }
}

/** Records each window's ids and emits their sum (anchored by the runtime). */
class Summer extends WindowedBolt {
  readonly windows: { ids: number[]; added: number[]; expired: number[]; start: number; end: number }[] = [];
  private out!: OutputCollector;
  /** What execute does: return nothing, throw, fail a tuple, or return a promise the test settles. */
  behaviour: 'ok' | 'throw' | 'fail' | 'async' = 'ok';
  release: (() => void) | null = null;

  override prepare(_c: unknown, _ctx: unknown, out: OutputCollector): void {
    this.out = out;
  }

  execute(w: TupleWindow): void | Promise<void> {
    const ids = (ts: readonly Tuple[]) => ts.map((t) => t.getIntegerByField('id'));
    this.windows.push({ ids: ids(w.get()), added: ids(w.getNew()), expired: ids(w.getExpired()), start: w.getStartTimestamp(), end: w.getEndTimestamp() });
    this.out.emit([ids(w.get()).reduce((a, b) => a + b, 0)]);
    if (this.behaviour === 'throw') throw new Error('boom');
    if (this.behaviour === 'fail') this.out.fail(w.get()[0]!);
    if (this.behaviour === 'async') return new Promise<void>((r) => (this.release = r));
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['sum']);
  }
}

interface Recorded {
  emits: { values: Values; options: EmitOptions | undefined }[];
  acked: number[];
  failed: number[];
}

function recorder(): OutputCollector & Recorded {
  const r: Recorded = { emits: [], acked: [], failed: [] };
  const id = (t: Tuple) => t.getIntegerByField('id');
  return {
    ...r,
    // Only the options form: the windowing bolt hands every emit on in it.
    emit: (values: unknown, options?: unknown): number[] => {
      r.emits.push({ values: values as Values, options: options as EmitOptions | undefined });
      return [];
    },
    emitDirect() {},
    resetTimeout() {},
    ack: (t) => r.acked.push(id(t)),
    fail: (t) => r.failed.push(id(t)),
    reportError() {},
    get emits() {
      return r.emits;
    },
    get acked() {
      return r.acked;
    },
    get failed() {
      return r.failed;
    },
  };
}

const FIELDS = new Fields(['id', 'ts']);
const tuple = (id: number, ts = 0, task = 1) => new RuntimeTuple([id, ts], FIELDS, 'src', 'default', task, [id + 1, 0, 1, 0]);

/** A topology of src (2 tasks) → win, for the context's tasksOf and topologyDef. */
const DEF: TopologyDef = {
  components: [
    { id: 'src', kind: 'spout', parallelism: 2, streams: [{ id: 'default', fields: ['id', 'ts'], direct: false }], inputs: [], gpu: null, config: {} },
    { id: 'win', kind: 'bolt', parallelism: 1, streams: [], inputs: [{ component: 'src', stream: 'default', grouping: { type: 'shuffle' } }], gpu: null, config: {} },
  ],
  config: {},
};

/** Feeds a tuple that must be taken at once (no evaluation in progress, none async). */
function feed(exec: WindowedBoltExecutor, t: Tuple): void {
  const r = exec.execute(t);
  assert.equal(r, undefined, 'execute returned a promise');
}

async function prepared(bolt: WindowedBolt, clock = new ManualClock(0)) {
  const exec = new WindowedBoltExecutor(bolt, { clock });
  const base = fakeContext({ component: 'win', taskId: 3, tasks: [3], def: DEF });
  const ctx = { ...base, tasksOf: (c: string) => (c === 'src' ? [1, 2] : c === 'win' ? [3] : []) };
  const out = recorder();
  await exec.prepare({}, ctx, out);
  return { exec, out, clock, ctx };
}

describe('WindowedBolt in the builder', () => {
  it('records the window in the definition, declares the late stream, and wraps the bolt for the worker', () => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new Source());
    b.setBolt('win', () => new Summer().withWindow(Duration.ofSeconds(10), Duration.ofSeconds(2)).withTimestampField('ts').withLag(Duration.ofMillis(500)).withLateTupleStream('late'))
      .shuffleGrouping('src');
    b.setBolt('count', () => new Summer().withTumblingWindow(Count.of(5))).shuffleGrouping('src');
    const topo = b.createTopology();
    const win = topo.def.components.find((c) => c.id === 'win')!;
    assert.deepEqual(win.window, {
      length: { unit: 'ms', value: 10_000 },
      slide: { unit: 'ms', value: 2000 },
      timestampField: 'ts',
      eventTime: true,
      lagMs: 500,
      watermarkIntervalMs: 1000,
      idleTimeoutMs: null,
      lateStream: 'late',
    });
    assert.deepEqual(win.streams, [
      { id: 'default', fields: ['sum'], direct: false },
      { id: 'late', fields: ['late_tuple'], direct: false },
    ]);
    assert.deepEqual(topo.def.components.find((c) => c.id === 'count')!.window?.slide, { unit: 'count', value: 5 });
    assert.ok(topo.factories.get('win')!() instanceof WindowedBoltExecutor, 'the worker gets a plain Bolt');
  });

  it('refuses a bolt without a window, event-time settings without a timestamp, and bad units, naming the call', () => {
    const build = (f: () => WindowedBolt) => {
      const b = new TopologyBuilder();
      b.setSpout('src', () => new Source());
      b.setBolt('w', f).shuffleGrouping('src');
      return () => b.createTopology();
    };
    assert.throws(build(() => new Summer()), (e: WindowValidationError) => e.code === 'HSTORM_ERR_TOPOLOGY_WINDOW' && e.component === 'w' && /withWindow/.test(e.message));
    assert.throws(build(() => new Summer().withTumblingWindow(Count.of(3)).withLag(Duration.ofSeconds(1))), /withLag apply to event time/);
    assert.throws(() => Count.of(0), /Count\.of\(0\)/);
    assert.throws(() => Duration.ofSeconds(-1), /Duration\.ofSeconds\(-1\)/);
    assert.throws(() => new Summer().withWindow(Duration.ofMillis(0)), /at least 1 ms/);
    assert.throws(() => new Summer().withLateTupleStream('__x'), WindowValidationError);
    assert.equal(Duration.ofSeconds(1.5).toMillis(), 1500);
  });

  it("takes Storm's spellings of the units beside hstorm's: Duration.seconds/minutes/hours/days/of, new Duration(n, TimeUnit), new Count(n)", () => {
    const same = (a: Duration, ms: number) => {
      assert.ok(a instanceof Duration);
      assert.equal(a.value, ms);
      assert.equal(a.toMillis(), ms);
    };
    same(Duration.seconds(5), 5000);
    same(Duration.minutes(2), 120_000);
    same(Duration.hours(1), 3_600_000);
    same(Duration.days(2), 172_800_000);
    same(Duration.of(250), 250);
    same(new Duration(10, TimeUnit.SECONDS), 10_000);
    same(new Duration(3, 'MINUTES'), 180_000);
    same(new Duration(1, TimeUnit.DAYS), 86_400_000);
    const c = new Count(7);
    assert.ok(c instanceof Count);
    assert.equal(c.value, 7);
    assert.deepEqual(new Summer().withWindow(new Count(4), Duration.seconds(1)).windowDef('w').length, { unit: 'count', value: 4 });
    assert.deepEqual(new Summer().withTumblingWindow(Duration.minutes(1)).windowDef('w').slide, { unit: 'ms', value: 60_000 });
    assert.throws(() => new Count(0), (e: unknown) => e instanceof WindowValidationError && /new Count\(0\): a window count must be an integer ≥ 1/.test(e.message));
    assert.throws(() => Duration.seconds(-1), /Duration\.seconds\(-1\): a duration must be a whole number of ms ≥ 0/);
    assert.throws(() => new Duration(5, 'FORTNIGHTS' as TimeUnit), /the time unit must be one of MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS/);
  });

  it('refuses withTimestampField naming a field an input stream does not declare, naming the bolt, the field and the declared fields (at build and at submit)', () => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new Source());
    b.setBolt('w', () => new Summer().withTumblingWindow(Duration.ofSeconds(1)).withTimestampField('time')).shuffleGrouping('src');
    const refused = (e: unknown): boolean => {
      assert.ok(e instanceof WindowValidationError, String(e));
      assert.equal(e.code, 'HSTORM_ERR_TOPOLOGY_WINDOW');
      assert.equal(e.component, 'w');
      assert.match(e.message, /^bolt "w": withTimestampField\("time"\) names a field that stream "default" of "src" does not declare \(fields: id, ts\): every tuple of it would fail/);
      assert.match(e.message, /withTimestampExtractor/);
      return true;
    };
    assert.throws(() => b.createTopology(), refused);
    // Nimbus checks a submitted definition with the same function (nimbus/submit-validation.ts).
    const ok = new TopologyBuilder();
    ok.setSpout('src', () => new Source());
    ok.setBolt('w', () => new Summer().withTumblingWindow(Duration.ofSeconds(1)).withTimestampField('ts')).shuffleGrouping('src');
    const def = ok.createTopology().def;
    const renamed: TopologyDef = { ...def, components: def.components.map((c) => (c.window ? { ...c, window: { ...c.window, timestampField: 'time' } } : c)) };
    assert.throws(() => validateTopology(renamed), refused);
    // An extractor reads what it likes: nothing to check.
    const ex = new TopologyBuilder();
    ex.setSpout('src', () => new Source());
    ex.setBolt('w', () => new Summer().withTumblingWindow(Duration.ofSeconds(1)).withTimestampExtractor((t) => t.getLongByField('ts'))).shuffleGrouping('src');
    ex.createTopology();
  });
});

describe('window bounds at submit (validateWindowBounds)', () => {
  const topo = (bolt: () => WindowedBolt, spoutConf: Record<string, unknown> = {}) => {
    const b = new TopologyBuilder();
    const s = b.setSpout('src', () => new Source());
    for (const [k, v] of Object.entries(spoutConf)) s.addConfiguration(k, v);
    b.setBolt('win', bolt).shuffleGrouping('src');
    return b.createTopology().def;
  };
  const conf = (c: Record<string, unknown>) => buildConfig([c], { allowUserKeys: true });

  it('refuses a duration window longer than the message timeout, naming the bolt, both values and the fix', () => {
    const def = topo(() => new Summer().withWindow(Duration.ofSeconds(25), Duration.ofSeconds(10)));
    assert.throws(
      () => validateWindowBounds(def, conf({ 'topology.message.timeout.secs': 30 })),
      (e: WindowValidationError) =>
        e.code === 'HSTORM_ERR_TOPOLOGY_WINDOW' &&
        e.component === 'win' &&
        e.message.includes('bolt "win"') &&
        e.message.includes('35 s (length 25 s + slide 10 s)') &&
        e.message.includes('topology.message.timeout.secs = 30') &&
        e.message.includes('Raise topology.message.timeout.secs to at least 36') &&
        e.limit?.value === 30 &&
        e.limit.needed === 36,
    );
    validateWindowBounds(def, conf({ 'topology.message.timeout.secs': 36 }));
  });

  it('counts lag and the watermark interval in event time, and takes the tightest upstream spout', () => {
    const def = topo(() => new Summer().withWindow(Duration.ofSeconds(20), Duration.ofSeconds(5)).withTimestampField('ts').withLag(Duration.ofSeconds(4)), { 'topology.message.timeout.secs': 29 });
    assert.throws(() => validateWindowBounds(def, conf({ 'topology.message.timeout.secs': 60 })), /30 s \(length 20 s \+ slide 5 s \+ lag 4 s \+ watermark interval 1 s\).*= 29 \(spout "src"\)/);
  });

  it('refuses a count window larger than max spout pending, unless acking is off', () => {
    const def = topo(() => new Summer().withWindow(Count.of(500), Count.of(100)));
    assert.throws(() => validateWindowBounds(def, conf({ 'topology.max.spout.pending': 200 })), /holds 500 tuples, more than topology.max.spout.pending = 200.*at least 500/);
    validateWindowBounds(def, conf({ 'topology.max.spout.pending': 500 }));
    validateWindowBounds(def, conf({ 'topology.max.spout.pending': 200, 'topology.acker.executors': 0 }));
  });

  /** src → first → (a plain bolt, when `between`) → second: two count windows on one path. */
  const chained = (first: () => WindowedBolt, second: () => WindowedBolt, between = false) => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new Source());
    b.setBolt('first', first).shuffleGrouping('src');
    if (between) b.setBolt('pass', () => new Pass()).shuffleGrouping('first');
    b.setBolt('second', second).shuffleGrouping(between ? 'pass' : 'first');
    return b.createTopology().def;
  };

  it('counts every count window on the path: one downstream of another holds its input windows\' tuples in flight, and the advice covers it', () => {
    // 5 tumbling windows of "first", each anchored to 10 spout tuples: 50 in flight before "second" fires.
    const tumbling = chained(() => new Summer().withTumblingWindow(Count.of(10)), () => new Summer().withTumblingWindow(Count.of(5)));
    assert.throws(
      () => validateWindowBounds(tumbling, conf({ 'topology.max.spout.pending': 20 })),
      (e: WindowValidationError) => {
        assert.equal(e.component, 'second');
        assert.match(e.message, /^bolt "second": its count window holds 5 tuples of "first", each anchored to a window of its input, so 50 spout tuples stay in flight until they leave it, more than topology.max.spout.pending = 20/);
        assert.match(e.message, /Raise topology.max.spout.pending to at least 50 \(e.g. -c topology.max.spout.pending=100\) or shrink the windows$/);
        assert.deepEqual(e.limit, { key: 'topology.max.spout.pending', value: 20, needed: 50 });
        return true;
      },
    );
    validateWindowBounds(tumbling, conf({ 'topology.max.spout.pending': 50 }));
    // Sliding windows overlap: 3 windows of 10 every 5 span 10 + 2 × 5 tuples; a plain bolt between changes nothing.
    const sliding = chained(() => new Summer().withWindow(Count.of(10), Count.of(5)), () => new Summer().withTumblingWindow(Count.of(3)), true);
    assert.throws(() => validateWindowBounds(sliding, conf({ 'topology.max.spout.pending': 19 })), (e: WindowValidationError) => e.component === 'second' && e.limit?.needed === 20 && /"first", each anchored/.test(e.message));
    validateWindowBounds(sliding, conf({ 'topology.max.spout.pending': 20 }));
    // Of several windows that cannot fill, the advice is the largest need, so one raise is enough.
    const both = chained(() => new Summer().withTumblingWindow(Count.of(30)), () => new Summer().withTumblingWindow(Count.of(2)));
    assert.throws(() => validateWindowBounds(both, conf({ 'topology.max.spout.pending': 20 })), (e: WindowValidationError) => e.component === 'second' && e.limit?.needed === 60);
    // A time window upstream: how many tuples it holds depends on the rate; only the window's own length counts.
    const timed = chained(() => new Summer().withTumblingWindow(Duration.ofSeconds(1)), () => new Summer().withTumblingWindow(Count.of(5)));
    validateWindowBounds(timed, conf({ 'topology.max.spout.pending': 5 }));
    assert.throws(() => validateWindowBounds(timed, conf({ 'topology.max.spout.pending': 4 })), (e: WindowValidationError) => e.component === 'second' && e.limit?.needed === 5);
  });
});

describe('the windowing bolt (manual clock)', () => {
  it('tumbling count window: emits anchored to the whole window, acks each tuple after its window', async () => {
    const bolt = new Summer().withTumblingWindow(Count.of(3));
    const { exec, out } = await prepared(bolt);
    const ts = [0, 1, 2, 3, 4].map((i) => tuple(i));
    for (const t of ts) feed(exec, t); // a synchronous window keeps execute synchronous
    assert.deepEqual(bolt.windows.map((w) => w.ids), [[0, 1, 2]]);
    assert.deepEqual(out.emits[0]!.values, [3]);
    assert.deepEqual(out.emits[0]!.options?.anchors, ts.slice(0, 3), 'anchored to every tuple of the window');
    assert.deepEqual(out.acked, [0, 1, 2]);
    assert.equal(exec.metrics().held, 2);
  });

  it("getIter() walks the window as Storm's iterator (hasNext/next), as for…of and as for await…of, each from the start", async () => {
    const seen: { storm: number[]; sync: number[]; async: number[]; rest: number[] }[] = [];
    class Iterating extends WindowedBolt {
      async execute(w: TupleWindow): Promise<void> {
        const it = w.getIter();
        const storm: number[] = [];
        while (it.hasNext()) storm.push(it.next().getIntegerByField('id'));
        assert.throws(() => it.next(), /no more tuples \(it gave all 3\): check hasNext\(\) before next\(\)/);
        assert.throws(() => it.remove(), /read-only/);
        const sync: number[] = [];
        for (const t of w.getIter()) sync.push(t.getIntegerByField('id'));
        const asyncIds: number[] = [];
        for await (const t of w.getIter()) asyncIds.push(t.getIntegerByField('id'));
        const rest: number[] = [];
        const part = w.getIter();
        part.next();
        part.forEachRemaining((t) => rest.push(t.getIntegerByField('id')));
        seen.push({ storm, sync, async: asyncIds, rest });
      }
    }
    const { exec } = await prepared(new Iterating().withTumblingWindow(Count.of(3)));
    for (const i of [0, 1]) feed(exec, tuple(i));
    await exec.execute(tuple(2));
    assert.deepEqual(seen, [{ storm: [0, 1, 2], sync: [0, 1, 2], async: [0, 1, 2], rest: [1, 2] }]);
  });

  it('sliding count window: new and expired, and a tuple acked only when it leaves its last window', async () => {
    const bolt = new Summer().withWindow(Count.of(4), Count.of(2));
    const { exec, out } = await prepared(bolt);
    for (let i = 0; i < 8; i++) feed(exec, tuple(i));
    assert.deepEqual(
      bolt.windows.map((w) => [w.ids, w.added, w.expired]),
      [
        [[0, 1], [0, 1], []],
        [[0, 1, 2, 3], [2, 3], []],
        [[2, 3, 4, 5], [4, 5], [0, 1]],
        [[4, 5, 6, 7], [6, 7], [2, 3]],
      ],
    );
    assert.deepEqual(out.acked, [0, 1, 2, 3, 4, 5], 'the next window (at 10) holds 6…9 only: 4 and 5 have left their last');
  });

  it('a window whose execute throws or fails a tuple fails every tuple of it, and they leave later windows', async () => {
    const bolt = new Summer().withWindow(Count.of(4), Count.of(2));
    const { exec, out } = await prepared(bolt);
    feed(exec, tuple(0));
    bolt.behaviour = 'throw';
    feed(exec, tuple(1));
    assert.deepEqual(out.failed, [0, 1]);
    bolt.behaviour = 'fail';
    feed(exec, tuple(2));
    feed(exec, tuple(3));
    assert.deepEqual(bolt.windows.at(-1)!.ids, [2, 3], 'the failed tuples are in no later window');
    assert.deepEqual(out.failed, [0, 1, 2, 3]);
    bolt.behaviour = 'ok';
    for (let i = 4; i < 8; i++) feed(exec, tuple(i));
    assert.deepEqual(bolt.windows.at(-1)!.ids, [4, 5, 6, 7]);
    assert.deepEqual(out.acked, [4, 5], 'failed tuples are never acked');
    assert.equal(exec.metrics().failedWindows, 2);
  });

  it('an async window holds execute back until it settles, then acks', async () => {
    const bolt = new Summer().withTumblingWindow(Count.of(2));
    bolt.behaviour = 'async';
    const { exec, out } = await prepared(bolt);
    feed(exec, tuple(0));
    const busy = exec.execute(tuple(1));
    assert.ok(busy instanceof Promise, 'execute returns the evaluation');
    const next = exec.execute(tuple(2));
    assert.ok(next instanceof Promise, 'the next tuple waits for it');
    await settle();
    assert.deepEqual(out.acked, []);
    bolt.release!();
    await busy;
    await next;
    assert.deepEqual(out.acked, [0, 1]);
    assert.equal(exec.metrics().held, 1);
  });

  it('processing-time sliding window: windows on the slide grid as the clock moves, each tuple in length/slide windows', async () => {
    const bolt = new Summer().withWindow(Duration.ofMillis(300), Duration.ofMillis(100));
    const { exec, out, clock } = await prepared(bolt, new ManualClock(1000));
    for (let i = 0; i < 10; i++) {
      feed(exec, tuple(i));
      await clock.advance(25);
    }
    await clock.advance(500);
    const seen = new Map<number, number>();
    for (const w of bolt.windows) {
      assert.equal(w.end % 100, 0, 'ends on the grid');
      assert.equal(w.end - w.start, 300);
      for (const id of w.ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    for (let i = 0; i < 10; i++) assert.equal(seen.get(i), 3, `tuple ${i} in exactly 3 windows`);
    assert.deepEqual([...out.acked].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.equal(exec.metrics().held, 0);
  });

  it('event time: windows follow the watermark (min over input tasks − lag), late tuples go to the late stream', async () => {
    const bolt = new Summer().withTumblingWindow(Duration.ofMillis(100)).withTimestampField('ts').withLag(Duration.ofMillis(20)).withLateTupleStream('late');
    const { exec, out, clock } = await prepared(bolt);
    // Task 1 runs ahead, task 2 behind and out of order: the watermark follows task 2.
    feed(exec, tuple(0, 250, 1));
    feed(exec, tuple(1, 90, 2));
    feed(exec, tuple(2, 40, 2));
    feed(exec, tuple(3, 130, 2));
    await clock.advance(1000);
    assert.equal(exec.metrics().watermark, 110, 'min(250, 130) − 20');
    assert.deepEqual(bolt.windows.map((w) => [w.ids, w.start, w.end]), [[[2, 1], 0, 100]], 'in timestamp order');
    feed(exec, tuple(4, 105, 2));
    assert.deepEqual(bolt.windows.length, 1);
    const lateEmit = out.emits.find((e) => e.options?.stream === 'late')!;
    const late = lateEmit.values[0] as LateTuple;
    assert.deepEqual([late.values, late.fields, late.sourceComponent, late.sourceTask], [[4, 105], ['id', 'ts'], 'src', 2]);
    assert.equal((lateEmit.options?.anchors as Tuple).getIntegerByField('id'), 4, 'anchored to the late tuple');
    assert.ok(out.acked.includes(4), 'and acked');
    feed(exec, tuple(5, 300, 2));
    await clock.advance(1000);
    assert.deepEqual(bolt.windows.map((w) => w.ids), [[2, 1], [3]], '[200, 300) is not due before the watermark reaches 300');
    const m = exec.metrics();
    assert.deepEqual([m.lateRouted, m.lateDropped, m.watermark, m.watermarkLagMs, m.inputs], [1, 0, 230, 70, 2]);
  });

  it('event time without a late stream: late tuples are acked, dropped and counted', async () => {
    const bolt = new Summer().withTumblingWindow(Duration.ofMillis(100)).withTimestampField('ts');
    const { exec, out, clock } = await prepared(bolt);
    feed(exec, tuple(0, 500, 1));
    feed(exec, tuple(1, 500, 2));
    await clock.advance(1000);
    feed(exec, tuple(2, 10, 1));
    assert.deepEqual(out.acked, [2], 'stamped 500, 0 and 1 wait for a watermark past 500; 2 is late');
    assert.equal(out.emits.filter((e) => e.options?.stream === 'late').length, 0);
    assert.equal(exec.metrics().lateDropped, 1);
  });

  it('by default the watermark waits for the data: a source that pauses 8 s and resumes with continuing timestamps has none of its tuples late', async () => {
    // One tuple every 100 ms of clock, stamped with the clock: 10 per 1 s window, both input tasks alike.
    const run = async (bolt: Summer) => {
      const { exec, out, clock } = await prepared(bolt);
      let id = 0;
      let ts = 0;
      const burst = async (n: number) => {
        for (let i = 0; i < n; i++, ts += 100) {
          feed(exec, tuple(id++, ts, 1));
          feed(exec, tuple(id++, ts, 2));
          await clock.advance(100);
        }
      };
      await burst(30);
      await clock.advance(8000); // the source pauses; its clock goes on, its timestamps do not
      await burst(30);
      // A last pair stamped past the windows, so every window of the 60 steps is due.
      feed(exec, tuple(id++, ts + 1000, 1));
      feed(exec, tuple(id++, ts + 1000, 2));
      await clock.advance(2000);
      return { exec, out, sent: id };
    };
    const bolt = new Summer().withTumblingWindow(Duration.ofSeconds(1)).withTimestampField('ts');
    const { exec, out, sent } = await run(bolt);
    assert.equal(exec.metrics().lateDropped, 0, 'no tuple late');
    assert.deepEqual(bolt.windows.map((w) => [w.start, w.ids.length]), Array.from({ length: 6 }, (_, k) => [k * 1000, 20]), 'six windows of 20, as without the pause');
    assert.equal(new Set(bolt.windows.flatMap((w) => w.ids)).size, sent - 2);
    assert.ok(out.failed.length === 0);
    // withIdleTimeout is the opt-in to hstorm's idle inputs: then the paused source's next tuples are late.
    const opted = new Summer().withTumblingWindow(Duration.ofSeconds(1)).withTimestampField('ts').withIdleTimeout(Duration.ofSeconds(5));
    const idle = await run(opted);
    assert.ok(idle.exec.metrics().lateDropped >= 20, `with withIdleTimeout(5 s) the resumed tuples are late (${idle.exec.metrics().lateDropped})`);
  });

  it('by default a task never heard from holds the watermark, as Storm waits for every input', async () => {
    const bolt = new Summer().withTumblingWindow(Duration.ofMillis(100)).withTimestampField('ts');
    const { exec, clock } = await prepared(bolt);
    feed(exec, tuple(0, 150, 1));
    await clock.advance(60_000);
    assert.equal(exec.metrics().watermark, null, 'task 2 never sent: no watermark, however long');
    feed(exec, tuple(1, 120, 2));
    await clock.advance(1000);
    assert.equal(exec.metrics().watermark, 120);
    assert.deepEqual(bolt.windows.map((w) => w.ids), []);
    assert.equal(exec.metrics().lateDropped, 0);
  });

  it('with withIdleTimeout (opt-in), an idle input task stops holding the watermark back; with every task idle it follows the clock', async () => {
    const bolt = new Summer().withTumblingWindow(Duration.ofMillis(100)).withTimestampField('ts').withIdleTimeout(Duration.ofSeconds(3));
    const { exec, clock } = await prepared(bolt);
    feed(exec, tuple(0, 150, 1));
    await clock.advance(1000);
    assert.equal(exec.metrics().watermark, null, 'task 2 never sent: it holds the watermark for the idle timeout');
    feed(exec, tuple(1, 180, 1));
    await clock.advance(2000);
    assert.equal(exec.metrics().watermark, 180, 'then task 2 no longer counts');
    assert.equal(bolt.windows.length, 0, '[100, 200) is not due yet');
    await clock.advance(3000);
    // Task 1 idle too (3 s since its last tuple): the watermark moves on with the clock and closes the window.
    assert.ok(exec.metrics().watermark! >= 180 + 3000);
    assert.deepEqual(bolt.windows.map((w) => w.ids), [[0, 1]]);
    assert.equal(exec.metrics().activeInputs, 0);
  });

  it('an event-time tuple without a numeric timestamp throws a typed error (the worker fails the tuple)', async () => {
    const { exec } = await prepared(new Summer().withTumblingWindow(Count.of(2)).withTimestampField('ts'));
    const bad = new RuntimeTuple([1, 'noon'], FIELDS, 'src', 'default', 1, null);
    assert.throws(() => exec.execute(bad), (e: Error & { code?: string }) => e.code === 'HSTORM_ERR_WORKER_WINDOW_TIMESTAMP' && /"noon" \(string\)/.test(e.message));
  });

  it('reports its window section with the spec in words', async () => {
    const { exec, ctx } = await prepared(new Summer().withWindow(Duration.ofSeconds(30), Duration.ofSeconds(5)).withTimestampField('ts').withLag(Duration.ofSeconds(2)));
    const section = ctx.sections.get('window')!() as ReturnType<WindowedBoltExecutor['metrics']>;
    assert.equal(section.spec, 'sliding 30 s every 5 s, event time (ts), lag 2 s');
    assert.equal(ctx.busyTime !== null, true, 'evaluation time counts in capacity');
    await exec.cleanup();
  });
});
