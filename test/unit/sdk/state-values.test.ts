/**
 * State values keep their type across a checkpoint and a reload (issue 42,
 * item 1): a KeyValueState (and a persistent window's paged state) saves
 * values through the tuples' codec (common/values/), so a Map comes back a
 * Map and an instance of a registered class an instance of it, as after a
 * restart or a rollback; a value a tuple could not carry is refused at put,
 * naming the key; bytes written before (plain msgpack) still load.
 */
import assert from 'node:assert/strict';
import { Packr } from 'msgpackr';
import { MemoryStateStore } from '../../../common/state-store/index.js';
import { NO_VALUE_TYPES, ValueTypes } from '../../../common/values/value-types.js';
import { registerValueTypes } from '../../../common/values/wire-form.js';
import { StoreKeyValueState } from '../../../topology-sdk/internal/store-key-value-state.js';
import { PagedState } from '../../../topology-sdk/internal/paged-state.js';
import { encodeState } from '../../../topology-sdk/internal/state-codec.js';

/** Storm's org.apache.storm.streams.Pair, as storm-starter's PersistentWindowingTopology keeps its average in. */
class Pair<A, B> {
  constructor(
    private readonly first: A,
    private readonly second: B,
  ) {}
  static of<A, B>(a: A, b: B): Pair<A, B> {
    return new Pair(a, b);
  }
  getFirst(): A {
    return this.first;
  }
  getSecond(): B {
    return this.second;
  }
}

class NotRegistered {
  x = 1;
}

const owner = { component: 'avg', task: 3, onCorrupt: () => undefined };

describe('state values keep their type across a checkpoint and a reload', () => {
  // What a worker does at start for its topology's registrations (task-wiring.ts).
  before(() => registerValueTypes(new ValueTypes([{ name: 'Pair', Class: Pair, serializer: null }])));
  after(() => registerValueTypes(NO_VALUE_TYPES));

  async function reloaded<V>(entries: [string, V][]): Promise<StoreKeyValueState<string, unknown>> {
    const store = new MemoryStateStore();
    const s = new StoreKeyValueState<string, unknown>(store, 'ns', owner);
    for (const [k, v] of entries) s.put(k, v);
    await s.prepare(1);
    await s.commit(1);
    const r = new StoreKeyValueState<string, unknown>(store, 'ns', owner);
    await r.load();
    assert.equal(r.corruptEntries, 0);
    return r;
  }

  it('a registered class, a Map, a Set, a Date, bigints, typed arrays, -0 and a __proto__ key, nested anywhere', async () => {
    const map = new Map<unknown, unknown>([[2, 'b'], ['k', new Set([1n])]]);
    const r = await reloaded<unknown>([
      ['avg', Pair.of(1234, 56)],
      ['map', map],
      ['nested', { pairs: [Pair.of('a', new Map([[1, Pair.of(2, 3)]]))], when: new Date(7), big: 2n ** 70n }],
      ['floats', new Float64Array([1.5, -0])],
      ['negzero', -0],
      ['proto', JSON.parse('{"__proto__": {"x": 1}}') as unknown],
    ]);
    const avg = r.get('avg') as Pair<number, number>;
    assert.ok(avg instanceof Pair, 'a Pair is a Pair');
    assert.deepEqual([avg.getFirst(), avg.getSecond()], [1234, 56]);
    assert.ok(r.get('map') instanceof Map, 'a Map is a Map');
    assert.deepStrictEqual(r.get('map'), map);
    assert.equal((r.get('map') as Map<unknown, unknown>).get(2), 'b', 'its number key stays a number');
    const nested = r.get('nested') as { pairs: Pair<string, Map<number, Pair<number, number>>>[]; when: Date; big: bigint };
    assert.ok(nested.pairs[0] instanceof Pair);
    assert.equal(nested.pairs[0]!.getSecond().get(1)!.getSecond(), 3);
    assert.ok(nested.when instanceof Date && nested.when.getTime() === 7);
    assert.equal(nested.big, 2n ** 70n);
    assert.ok(r.get('floats') instanceof Float64Array);
    assert.ok(Object.is(r.get('negzero'), -0));
    assert.deepEqual(Object.keys(r.get('proto') as object), ['__proto__']);
  });

  it('after a rollback too: the committed Pair comes back a Pair', async () => {
    const store = new MemoryStateStore();
    const s = new StoreKeyValueState<string, Pair<number, number>>(store, 'ns', owner);
    s.put('avg', Pair.of(10, 2));
    await s.prepare(1);
    await s.commit(1);
    s.put('avg', Pair.of(99, 9));
    await s.prepare(2);
    await s.rollback();
    const avg = s.get('avg')!;
    assert.ok(avg instanceof Pair);
    assert.deepEqual([avg.getFirst(), avg.getSecond()], [10, 2]);
  });

  it("a persistent window's paged state reads its values back with their types", async () => {
    const store = new MemoryStateStore();
    const p = new PagedState(store, 'ns:window');
    p.put(['p', 0], [['spout', 'default', 1, [Pair.of(1, 2), new Map([['a', 1]])]]]);
    await p.prepare(1);
    await p.commit(1);
    const [recs] = (await new PagedState(store, 'ns:window').get([['p', 0]])) as [[string, string, number, [Pair<number, number>, Map<string, number>]][]];
    assert.ok(recs[0]![3][0] instanceof Pair);
    assert.ok(recs[0]![3][1] instanceof Map);
  });

  it('refuses at put what a tuple could not carry, naming the component, the task, the key and what it is', () => {
    const s = new StoreKeyValueState<string, unknown>(new MemoryStateStore(), 'ns', owner);
    const refused = (path: string, what: RegExp) => (e: unknown): boolean => {
      const err = e as { code?: string; message: string; component?: string; task?: number; value?: { path: string; type: string } };
      assert.equal(err.code, 'HSTORM_ERR_STATESTORE_VALUE', String(e));
      assert.equal(err.component, 'avg');
      assert.equal(err.task, 3);
      assert.equal(err.value?.path, path);
      assert.match(err.value!.type, what);
      assert.match(err.message, /^KeyValueState of "avg" task 3: the value of key "k" cannot be saved: it is /);
      return true;
    };
    assert.throws(() => s.put('k', new NotRegistered()), refused('', /class NotRegistered, which is not registered/));
    assert.throws(() => s.put('k', { list: [1, () => 2] }), refused('.list[1]', /a function/));
    assert.throws(() => s.put('k', new NotRegistered()), /registerSerialization\(NotRegistered\)/);
    assert.equal(s.has('k'), false, 'nothing was put');
  });

  it('state written before values took the codec (plain msgpack) loads as it did; a put saves it in the new form', async () => {
    const store = new MemoryStateStore();
    const plain = new Packr({ useRecords: false, int64AsType: 'bigint', moreTypes: true });
    // What hstorm wrote before: the Pair's fields, the Map as a msgpack map (read back as an object).
    await store.prepare('ns', 1, [
      [encodeState('avg'), plain.pack(Pair.of(5, 1))],
      [encodeState('map'), plain.pack(new Map([[2, 'b']]))],
      [encodeState('n'), plain.pack(42)],
    ]);
    await store.commit('ns', 1);
    const s = new StoreKeyValueState<string, unknown>(store, 'ns', owner);
    await s.load();
    assert.equal(s.corruptEntries, 0, 'old bytes are not corrupt');
    assert.deepEqual(s.get('avg'), { first: 5, second: 1 });
    assert.deepEqual(s.get('map'), { 2: 'b' });
    assert.equal(s.get('n'), 42);
    const old = s.get('avg') as { first: number; second: number };
    s.put('avg', Pair.of(old.first, old.second));
    await s.prepare(2);
    await s.commit(2);
    const r = new StoreKeyValueState<string, unknown>(store, 'ns', owner);
    await r.load();
    assert.ok(r.get('avg') instanceof Pair);
  });
});
