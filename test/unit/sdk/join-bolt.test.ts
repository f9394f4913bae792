/**
 * JoinBolt (Storm's org.apache.storm.bolt.JoinBolt) on one window at a time, without a cluster: storm-starter's
 * JoinBoltExample data with its output computed by hand, left joins, a three-way join on a prior stream that is not
 * the first, nested and qualified fields, Storm's null-key rules, key equality, anchoring to the joined tuples only,
 * the checks when the topology is built — and a property test against a nested-loop reference written from Storm's
 * JoinBolt.java (inner and left joins of random windows over two and three streams).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Count, Duration, JoinBolt, JoinValidationError, Selector, Spout, TopologyBuilder, type OutputFieldsDeclarer, type Tuple, type TupleWindow } from 'hstorm';
import { CapturingOutputCollector, testContext, testTuple } from 'hstorm/testing';

/** A window of these tuples, as the windowing bolt hands one over (only get() is read by the join). */
function windowOf(tuples: readonly Tuple[]): TupleWindow {
  return { get: () => tuples } as unknown as TupleWindow;
}

function run(bolt: JoinBolt, tuples: readonly Tuple[]): CapturingOutputCollector {
  const out = new CapturingOutputCollector();
  bolt.prepare({}, testContext({ component: 'joiner' }), out);
  bolt.execute(windowOf(tuples));
  return out;
}

const gender = (id: unknown, g: string) => testTuple([id, g], { component: 'genderSpout', fields: ['id', 'gender'] });
const age = (id: unknown, a: number) => testTuple([id, a], { component: 'ageSpout', fields: ['id', 'age'] });

describe('JoinBolt', () => {
  it("joins storm-starter's JoinBoltExample data as computed by hand: ten records, each anchored to its two tuples", () => {
    // JoinBoltExample.generateGenderData then generateAgeData: ids 0..9 male/female by parity, then ids 9..0 aged id + 20.
    const g = Array.from({ length: 10 }, (_x, i) => gender(i, i % 2 === 0 ? 'male' : 'female'));
    const a = Array.from({ length: 10 }, (_x, k) => age(9 - k, 9 - k + 20));
    const bolt = new JoinBolt('genderSpout', 'id').join('ageSpout', 'id', 'genderSpout').select('genderSpout:id,ageSpout:id,gender,age').withTumblingWindow(Duration.seconds(10));
    const out = run(bolt, [...g, ...a]);
    assert.deepEqual(out.valuesOn(), [
      [0, 0, 'male', 20],
      [1, 1, 'female', 21],
      [2, 2, 'male', 22],
      [3, 3, 'female', 23],
      [4, 4, 'male', 24],
      [5, 5, 'female', 25],
      [6, 6, 'male', 26],
      [7, 7, 'female', 27],
      [8, 8, 'male', 28],
      [9, 9, 'female', 29],
    ]);
    out.emitted.forEach((e, i) => assert.deepEqual(e.anchors, [g[i], a[9 - i]], `record ${i} anchored to its gender and age tuples only`));
    const d = new TopologyBuilder();
    d.setSpout('genderSpout', () => new Src(['id', 'gender']));
    d.setSpout('ageSpout', () => new Src(['id', 'age']));
    d.setBolt('joiner', () => new JoinBolt('genderSpout', 'id').join('ageSpout', 'id', 'genderSpout').select('genderSpout:id,ageSpout:id,gender,age').withTumblingWindow(Duration.seconds(10)))
      .fieldsGrouping('genderSpout', ['id'])
      .fieldsGrouping('ageSpout', ['id']);
    const joiner = d.createTopology().def.components.find((c) => c.id === 'joiner')!;
    assert.deepEqual(joiner.streams, [{ id: 'default', fields: ['genderSpout:id', 'ageSpout:id', 'gender', 'age'], direct: false }], 'the output fields are named as select wrote them');
  });

  it('leftJoin keeps every left record, with nulls where the right stream has no match; an inner join drops it', () => {
    const tuples = [gender(1, 'male'), gender(2, 'female'), gender(3, 'male'), age(2, 30), age(2, 31), age(4, 40)];
    const left = run(new JoinBolt('genderSpout', 'id').leftJoin('ageSpout', 'id', 'genderSpout').select('genderSpout:id, gender, age').withTumblingWindow(new Count(6)), tuples);
    assert.deepEqual(left.valuesOn(), [
      [1, 'male', null],
      [2, 'female', 30],
      [2, 'female', 31],
      [3, 'male', null],
    ]);
    assert.deepEqual(left.emitted[0]!.anchors, [tuples[0]], 'a record with no match is anchored to its left tuple alone');
    const inner = run(new JoinBolt('genderSpout', 'id').join('ageSpout', 'id', 'genderSpout').select('genderSpout:id, gender, age').withTumblingWindow(new Count(6)), tuples);
    assert.deepEqual(inner.valuesOn(), [
      [2, 'female', 30],
      [2, 'female', 31],
    ]);
  });

  it('chains a three-way join on a prior stream that is not the first, keyed by that stream’s own join field', () => {
    // orders(oid, cust) ⋈ customers(cid, city) on cid = cust, then cities(name, country) on name = customers' join field…
    // Storm keys each join by the prior stream's join field: cities joins on customers.cid, not on city.
    const order = (oid: number, cust: number) => testTuple([oid, cust], { component: 'orders', fields: ['oid', 'cust'] });
    const cust = (cid: number, city: string) => testTuple([cid, city], { component: 'customers', fields: ['cid', 'city'] });
    const ref = (key: number, note: string) => testTuple([key, note], { component: 'notes', fields: ['key', 'note'] });
    const tuples = [order(10, 1), order(11, 2), order(12, 1), order(13, 9), cust(1, 'Oslo'), cust(2, 'Lima'), ref(1, 'vip'), ref(1, 'late'), ref(2, 'new')];
    const bolt = new JoinBolt('orders', 'cust').join('customers', 'cid', 'orders').join('notes', 'key', 'customers').select('oid, city, note').withTumblingWindow(new Count(9));
    assert.deepEqual(run(bolt, tuples).valuesOn(), [
      [10, 'Oslo', 'vip'],
      [10, 'Oslo', 'late'],
      [11, 'Lima', 'new'],
      [12, 'Oslo', 'vip'],
      [12, 'Oslo', 'late'],
    ]);
  });

  it("Storm's null rules: a left record whose key is missing is dropped, by a left join too; a right tuple with a null key matches nothing", () => {
    const tuples = [gender(null, 'male'), gender(5, 'female'), age(null, 1), age(5, 50)];
    const left = run(new JoinBolt('genderSpout', 'id').leftJoin('ageSpout', 'id', 'genderSpout').select('gender, age').withTumblingWindow(new Count(4)), tuples);
    assert.deepEqual(left.valuesOn(), [['female', 50]]);
    // After a left join found nothing, the next join's key (read from the missing stream) is null: dropped.
    const c = (id: number) => testTuple([id, 'c'], { component: 'c', fields: ['id', 'cv'] });
    const three = run(new JoinBolt('genderSpout', 'id').leftJoin('ageSpout', 'id', 'genderSpout').leftJoin('c', 'id', 'ageSpout').select('gender, age, cv').withTumblingWindow(new Count(4)), [gender(1, 'male'), gender(2, 'female'), age(2, 20), c(1), c(2)]);
    assert.deepEqual(three.valuesOn(), [['female', 20, 'c']]);
  });

  it('reads nested fields from Maps and objects, qualified or not, and unqualified from the first joined tuple that has the field', () => {
    const user = (id: number, profile: unknown) => testTuple([id, profile], { component: 'users', fields: ['id', 'profile'] });
    const visit = (uid: number, page: string, profile: unknown) => testTuple([{ user: uid }, page, profile], { component: 'visits', fields: ['key', 'page', 'profile'] });
    const tuples = [user(1, new Map([['city', 'Oslo']])), user(2, { city: 'Lima' }), visit(1, '/a', { city: 'Bergen' }), visit(2, '/b', null)];
    const bolt = new JoinBolt('users', 'id').join('visits', 'key.user', 'users').select('users:id, visits:key.user, profile.city, visits:profile.city, page').withTumblingWindow(new Count(4));
    const out = run(bolt, tuples);
    assert.deepEqual(out.valuesOn(), [
      [1, 1, 'Oslo', 'Bergen', '/a'],
      [2, 2, 'Lima', null, '/b'],
    ]);
    // A value in the way that is neither a Map nor an object fails the window, naming the path (Storm: ClassCastException).
    const bad = new JoinBolt('users', 'id').select('profile.city.zip').withTumblingWindow(new Count(1));
    assert.throws(() => run(bad, [user(1, { city: 'Oslo' })]), /"profile\.city\.zip" reads "profile\.city" as a Map or object.*a string/);
  });

  it('Selector.STREAM joins by stream id; withOutputStream emits on that stream; stream names in select ignore case as in Storm', () => {
    const t = (stream: string, id: number, v: string) => testTuple([id, v], { component: 'one', stream, fields: ['id', 'v'] });
    const bolt = new JoinBolt(Selector.STREAM, 'left', 'id').join('right', 'id', 'left').select('LEFT:v, Right:v').withOutputStream('joined').withTumblingWindow(new Count(3));
    const out = run(bolt, [t('left', 1, 'a'), t('right', 1, 'b'), t('right', 2, 'c')]);
    assert.deepEqual(out.valuesOn('joined'), [['a', 'b']]);
    assert.deepEqual(out.valuesOn('default'), []);
    assert.equal(JoinBolt.Selector.SOURCE, 'SOURCE');
  });

  it('compares keys by value as Java equals does: a safe bigint equals its number, arrays, objects and Dates by content', () => {
    const l = (k: unknown) => testTuple([k, 'l'], { component: 'l', fields: ['k', 'lv'] });
    const r = (k: unknown) => testTuple([k, 'r'], { component: 'r', fields: ['k', 'rv'] });
    const keys: [unknown, unknown][] = [
      [5, 5n],
      [[1, 'a'], [1, 'a']],
      [{ a: 1, b: [2] }, { b: [2], a: 1 }],
      [new Date(7), new Date(7)],
      [new Map([['x', 1]]), new Map([['x', 1]])],
    ];
    for (const [lk, rk] of keys) {
      const out = run(new JoinBolt('l', 'k').join('r', 'k', 'l').select('lv, rv').withTumblingWindow(new Count(2)), [l(lk), r(rk)]);
      assert.deepEqual(out.valuesOn(), [['l', 'r']], `key ${String(lk)}`);
    }
    // …and keeps apart what differs: the string "5" is not the number 5, [1] is not "[1]".
    for (const [lk, rk] of [['5', 5], [[1], '[1]'], [{ a: 1 }, { a: 2 }]] as [unknown, unknown][]) {
      assert.deepEqual(run(new JoinBolt('l', 'k').join('r', 'k', 'l').select('lv, rv').withTumblingWindow(new Count(2)), [l(lk), r(rk)]).valuesOn(), [], `${JSON.stringify(lk)} vs ${JSON.stringify(rk)}`);
    }
  });

  it('refuses what cannot work, where the topology is built, naming the call or the bolt', () => {
    assert.throws(() => new JoinBolt('a', 'k').join('b', 'k', 'c'), (e: unknown) => e instanceof JoinValidationError && e.code === 'HSTORM_ERR_TOPOLOGY_JOIN' && /stream "c" was not declared before/.test(e.message));
    assert.throws(() => new JoinBolt('a', 'k').join('b', 'k', 'a').leftJoin('b', 'k', 'a'), /"b" is already part of the join/);
    assert.throws(() => new JoinBolt('a', 'k').join('b', 'b:k', 'a'), /not expecting a stream qualifier ':'/);
    assert.throws(() => new JoinBolt('a', 'k').select('x,,y'), /"" is not a field name/);
    assert.throws(() => new JoinBolt('OTHER' as Selector, 'a', 'k'), /Selector\.SOURCE or Selector\.STREAM/);
    const build = (bolt: () => JoinBolt, inputs: string[]) => {
      const b = new TopologyBuilder();
      b.setSpout('a', () => new Src(['k', 'x']));
      b.setSpout('b', () => new Src(['k', 'y']));
      b.setSpout('c', () => new Src(['k', 'z']));
      const d = b.setBolt('join', bolt);
      for (const i of inputs) d.shuffleGrouping(i);
      return () => b.createTopology();
    };
    const ok = () => new JoinBolt('a', 'k').join('b', 'k', 'a').withTumblingWindow(new Count(2));
    assert.throws(build(ok, ['a', 'b']), (e: unknown) => e instanceof JoinValidationError && e.component === 'join' && /no output fields; call select/.test(e.message));
    assert.throws(build(() => ok().select('x, c:z'), ['a', 'b']), /select names "c:z", but "c" is not part of the join \(a, b\)/);
    assert.throws(build(() => ok().select('x, y'), ['a', 'b', 'c']), /takes source component "c", which the join does not name/);
    assert.throws(build(() => ok().select('x, y'), ['a']), /joins source component "b", but subscribes to no such input/);
    assert.doesNotThrow(build(() => ok().select('x, y'), ['a', 'b']));
  });

  it('gives the output of a nested-loop join written from Storm’s JoinBolt.java, for random windows, inner and left, two and three streams', () => {
    const streams = ['s0', 's1', 's2'];
    const tupleArb = fc.record({ s: fc.integer({ min: 0, max: 2 }), k: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null }), v: fc.integer({ min: 0, max: 99 }) });
    fc.assert(
      fc.property(fc.array(tupleArb, { maxLength: 40 }), fc.constantFrom(2, 3), fc.array(fc.constantFrom<'inner' | 'left'>('inner', 'left'), { minLength: 2, maxLength: 2 }), fc.boolean(), (raw, width, types, onFirst) => {
        const tuples = raw.filter((r) => r.s < width).map((r) => testTuple([r.k, r.v], { component: streams[r.s]!, fields: ['k', 'v'] }));
        // The third stream joins either on the first or on the second.
        const prior = ['s0', onFirst ? 's0' : 's1'];
        let bolt = new JoinBolt('s0', 'k');
        for (let i = 1; i < width; i++) bolt = types[i - 1] === 'inner' ? bolt.join(streams[i]!, 'k', prior[i - 1]!) : bolt.leftJoin(streams[i]!, 'k', prior[i - 1]!);
        bolt.select(streams.slice(0, width).map((s) => `${s}:v`).join(',')).withTumblingWindow(new Count(1));
        const got = run(bolt, tuples).emitted.map((e) => [e.values, e.anchors]);
        assert.deepEqual(got, nestedLoopJoin(tuples, streams.slice(0, width), types, prior));
      }),
      { numRuns: 300 },
    );
  });
});

class Src extends Spout {
  constructor(private readonly fields: string[]) {
    super();
  }
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(this.fields);
  }
}

/**
 * The reference: Storm's JoinBolt.hashJoin as plain loops, for streams whose key field is `k` and value `v` — records
 * are lists of tuples; each join scans the whole window for matches (no hashing), in window order.
 */
function nestedLoopJoin(tuples: readonly Tuple[], streams: readonly string[], types: readonly ('inner' | 'left')[], prior: readonly string[]): [unknown[], Tuple[]][] {
  const of = (s: string) => tuples.filter((t) => t.sourceComponent === s);
  const keyIn = (rec: Tuple[], s: string) => rec.find((t) => t.sourceComponent === s)?.getValueByField('k') ?? null;
  let records: Tuple[][] = of(streams[0]!).map((t) => [t]);
  for (let i = 1; i < streams.length; i++) {
    const next: Tuple[][] = [];
    for (const rec of records) {
      const key = keyIn(rec, prior[i - 1]!);
      if (key === null) continue;
      const matches = of(streams[i]!).filter((t) => t.getValueByField('k') !== null && t.getValueByField('k') === key);
      if (matches.length > 0) for (const m of matches) next.push([...rec, m]);
      else if (types[i - 1] === 'left') next.push([...rec]);
    }
    records = next;
  }
  return records.map((rec) => [streams.map((s) => rec.find((t) => t.sourceComponent === s)?.getValueByField('v') ?? null), rec]);
}
