/**
 * Stateful bolts as an author meets them (the builder's wiring, the checks at
 * submit) and the runtime bolts the builder puts around them
 * (topology-sdk/internal/stateful-bolt-executor.ts, checkpoint-forwarder.ts),
 * driven with hand-made tuples, a recording collector and a memory store: the
 * protocol's four actions, held acks, tuples before initState, rollback,
 * store failures, corrupt entries and anchoring.
 */
import assert from 'node:assert/strict';
import {
  BasicBolt,
  Spout,
  StatefulBolt,
  TopologyBuilder,
  type BasicOutputCollector,
  type EmitOptions,
  type KeyValueState,
  type OutputCollector,
  type OutputFieldsDeclarer,
  type Tuple,
  type Values,
} from 'hstorm';
import { CHECKPOINT_COMPONENT, CHECKPOINT_STREAM, type TopologyDef } from '../../../common/topology-def.js';
import { buildConfig } from '../../../common/config/index.js';
import { type StateCorruptError } from '../../../common/errors.js';
import { MemoryStateStore } from '../../../common/state-store/index.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { readEmitArgs } from '../../../topology-sdk/internal/emit-args.js';
import { StatefulBoltExecutor } from '../../../topology-sdk/internal/stateful-bolt-executor.js';
import { CheckpointForwarder } from '../../../topology-sdk/internal/checkpoint-forwarder.js';
import { CheckpointSpout } from '../../../topology-sdk/internal/checkpoint-spout.js';
import { StoreKeyValueState } from '../../../topology-sdk/internal/store-key-value-state.js';
import { validateStateBounds } from '../../../topology-sdk/validate-bounds.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { FlakyStateStore } from '../../helpers/flaky-state-store.js';

class Words extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word']);
  }
}

/** Counts words; records what the runtime called, in order. */
class Counter extends StatefulBolt<KeyValueState<string, number>> {
  readonly calls: string[] = [];
  counts: KeyValueState<string, number> | null = null;
  out!: OutputCollector;
  unanchored = false;

  override prepare(_c: unknown, _ctx: unknown, out: OutputCollector): void {
    this.out = out;
    this.calls.push('prepare');
  }

  initState(state: KeyValueState<string, number>): void {
    this.calls.push(`initState ${[...state].map(([k, v]) => `${k}=${v}`).join(',')}`);
    this.counts = state;
  }

  execute(t: Tuple): void {
    const w = t.getStringByField('word');
    this.calls.push(`execute ${w}`);
    const n = this.counts!.get(w, 0) + 1;
    this.counts!.put(w, n);
    this.out.emit([w, n], this.unanchored ? {} : { anchors: t });
    this.out.ack(t);
  }

  override prePrepare(txid: number): void {
    this.calls.push(`prePrepare ${txid}`);
  }

  override preCommit(txid: number): void {
    this.calls.push(`preCommit ${txid}`);
  }

  override preRollback(): void {
    this.calls.push('preRollback');
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word', 'count']);
  }
}

interface Recorded {
  emits: { values: Values; options: EmitOptions | undefined }[];
  acked: Tuple[];
  failed: Tuple[];
  errors: unknown[];
}

function recorder(): OutputCollector & Recorded {
  const r: Recorded = { emits: [], acked: [], failed: [], errors: [] };
  return Object.assign(r, {
    // Any of Storm's forms, recorded as the options form.
    emit(a: unknown, b?: unknown, c?: unknown) {
      const e = readEmitArgs('bolt', 'recorder', a, b, c);
      r.emits.push({ values: e.values, options: { stream: e.stream, anchors: e.anchors } });
      return [];
    },
    emitDirect() {},
    resetTimeout() {},
    ack: (t: Tuple) => r.acked.push(t),
    fail: (t: Tuple) => r.failed.push(t),
    reportError: (err: unknown) => r.errors.push(err),
  });
}

const WORD = new Fields(['word']);
const CP = new Fields(['txid', 'action']);
let root = 1;
const word = (w: string, task = 1) => new RuntimeTuple([w], WORD, 'src', 'default', task, [root++, 0, 1, 0]);
const cp = (txid: number, action: string, from = 9) => new RuntimeTuple([txid, action], CP, CHECKPOINT_COMPONENT, CHECKPOINT_STREAM, from, [root++, 0, 1, 0]);
const words = (ts: readonly Tuple[]) => ts.filter((t) => t.sourceStreamId === 'default').map((t) => t.getStringByField('word'));

/** src (tasks 1, 2) and the checkpoint spout (task 9, or `cpTasks`) → count (task 3). */
function def(cpTasks = 1): TopologyDef {
  return {
    components: [
      { id: 'src', kind: 'spout', parallelism: 2, streams: [{ id: 'default', fields: ['word'], direct: false }], inputs: [], gpu: null, config: {} },
      {
        id: 'count',
        kind: 'bolt',
        parallelism: 1,
        streams: [],
        inputs: [
          { component: 'src', stream: 'default', grouping: { type: 'shuffle' } },
          { component: CHECKPOINT_COMPONENT, stream: CHECKPOINT_STREAM, grouping: { type: 'all' } },
        ],
        gpu: null,
        config: {},
        state: { messageIdField: null, maxEventsInMemory: null },
      },
      { id: CHECKPOINT_COMPONENT, kind: 'spout', parallelism: cpTasks, streams: [{ id: CHECKPOINT_STREAM, fields: ['txid', 'action'], direct: false }], inputs: [], gpu: null, config: {} },
    ],
    config: {},
  };
}

async function started(opts: { store?: FlakyStateStore | MemoryStateStore; cpTasks?: number[] } = {}) {
  const store = opts.store ?? new MemoryStateStore();
  const bolt = new Counter();
  const exec = new StatefulBoltExecutor(bolt);
  const cpTasks = opts.cpTasks ?? [9];
  const ctx = fakeContext({ component: 'count', taskId: 3, tasks: [3], def: def(cpTasks.length), stateStore: store, tasksOf: (c) => (c === 'src' ? [1, 2] : c === CHECKPOINT_COMPONENT ? cpTasks : []) });
  const out = recorder();
  await exec.prepare({}, ctx, out);
  return { exec, bolt, out, ctx, store };
}

/** Committed entries of the count task's namespace. */
async function committed(store: MemoryStateStore | FlakyStateStore): Promise<Record<string, number>> {
  const s = new StoreKeyValueState<string, number>(store, '{test:count:0}', { component: 'count', task: 3, onCorrupt: () => undefined });
  await s.load();
  return Object.fromEntries([...s].sort(([a], [b]) => a.localeCompare(b)));
}

describe('StatefulBolt: the stateful executor', () => {
  it('holds tuples that arrive before initState, then runs them in order on the last committed state', async () => {
    const store = new MemoryStateStore();
    await store.prepare('{test:count:0}', 4, [[new Uint8Array([0xa1, 0x61]), new Uint8Array([5])]]); // a = 5, msgpack
    await store.commit('{test:count:0}', 4);
    const { exec, bolt, out } = await started({ store });
    await exec.execute(word('a'));
    await exec.execute(word('b'));
    assert.deepEqual(bolt.calls, ['prepare'], 'nothing executed before initState');
    const init = cp(4, 'INITSTATE');
    await exec.execute(init);
    assert.deepEqual(bolt.calls, ['prepare', 'initState a=5', 'execute a', 'execute b']);
    assert.deepEqual(bolt.counts!.get('a'), 6);
    // The checkpoint goes on downstream, anchored to the one it came with, and is acked.
    assert.deepEqual(out.emits.at(-1), { values: [4, 'INITSTATE'], options: { stream: CHECKPOINT_STREAM, anchors: init } });
    assert.ok(out.acked.includes(init));
    // A second INITSTATE (another task's recovery) does not call initState again.
    await exec.execute(cp(4, 'INITSTATE'));
    assert.equal(bolt.calls.filter((c) => c.startsWith('initState')).length, 1);
  });

  it('acks an input only when the checkpoint after it commits; a rollback fails what is held and restores the committed state', async () => {
    const { exec, bolt, out, store } = await started();
    await exec.execute(cp(0, 'INITSTATE'));
    await exec.execute(word('a'));
    assert.deepEqual(words(out.acked), [], 'the bolt acked a, the runtime holds it');
    await exec.execute(cp(1, 'PREPARE'));
    await exec.execute(word('b')); // after the prepare: waits for the next commit
    assert.deepEqual(await committed(store), {}, 'prepared is not committed');
    await exec.execute(cp(1, 'COMMIT'));
    assert.deepEqual(words(out.acked), ['a']);
    assert.deepEqual(await committed(store), { a: 1 });
    await exec.execute(cp(2, 'PREPARE'));
    await exec.execute(word('c'));
    await exec.execute(cp(2, 'ROLLBACK'));
    assert.deepEqual(words(out.failed), ['b', 'c'], 'every input since the last commit is failed, to be replayed');
    assert.deepEqual(Object.fromEntries(bolt.counts!), { a: 1 }, 'the state is the last commit');
    assert.deepEqual(bolt.calls.filter((c) => /^pre[A-Z]/.test(c)), ['prePrepare 1', 'preCommit 1', 'prePrepare 2', 'preRollback']);
    assert.deepEqual(words(out.acked), ['a']);
    const m = exec.metrics();
    assert.equal(m.lastCommittedTxid, 1);
    assert.equal(m.commits, 1);
    assert.equal(m.keys, 1);
    assert.equal(m.recoveries, 1);
    assert.equal(m.heldAcks, 0);
  });

  it('fails a PREPARE that comes before its state is loaded, so the checkpoint spout recovers', async () => {
    const { exec, out } = await started();
    const p = cp(3, 'PREPARE');
    await exec.execute(p);
    assert.deepEqual(out.failed, [p]);
    assert.equal(out.emits.length, 0);
  });

  it('rolls a prepared transaction forward or back before its state is loaded (recovery after a restart)', async () => {
    const store = new MemoryStateStore();
    await store.prepare('{test:count:0}', 7, [[new Uint8Array([0xa1, 0x61]), new Uint8Array([9])]]);
    const { exec, bolt } = await started({ store });
    await exec.execute(cp(7, 'COMMIT'));
    await exec.execute(cp(7, 'INITSTATE'));
    assert.equal(bolt.counts!.get('a'), 9);
    const other = new MemoryStateStore();
    await other.prepare('{test:count:0}', 7, [[new Uint8Array([0xa1, 0x61]), new Uint8Array([9])]]);
    const back = await started({ store: other });
    await back.exec.execute(cp(7, 'ROLLBACK'));
    await back.exec.execute(cp(6, 'INITSTATE'));
    assert.equal(back.bolt.counts!.get('a'), undefined);
    assert.deepEqual(await other.txids('{test:count:0}'), { committed: null, prepared: null });
  });

  it('acts on a checkpoint only once every input task sent it', async () => {
    const { exec, bolt, out } = await started({ cpTasks: [8, 9] });
    const first = cp(0, 'INITSTATE', 8);
    await exec.execute(first);
    assert.deepEqual(bolt.calls, ['prepare']);
    assert.deepEqual(out.acked, [first], 'the early one is acked and waits');
    await exec.execute(cp(0, 'INITSTATE', 9));
    assert.deepEqual(bolt.calls, ['prepare', 'initState ']);
    assert.equal(out.emits.filter((e) => e.options?.stream === CHECKPOINT_STREAM).length, 1, 'forwarded once');
  });

  it('a store failure fails the checkpoint; the failed prepare\'s changes go with the next one', async () => {
    const store = new FlakyStateStore();
    const { exec, out } = await started({ store });
    await exec.execute(cp(0, 'INITSTATE'));
    await exec.execute(word('a'));
    store.down = true;
    const p = cp(1, 'PREPARE');
    await exec.execute(p);
    assert.ok(out.failed.includes(p), 'the checkpoint failed');
    assert.equal(out.errors.length, 1);
    assert.equal((out.errors[0] as { code: string }).code, 'HSTORM_ERR_STATESTORE_UNAVAILABLE');
    store.down = false;
    await exec.execute(word('b'));
    await exec.execute(cp(1, 'PREPARE'));
    await exec.execute(cp(1, 'COMMIT'));
    assert.deepEqual(await committed(store), { a: 1, b: 1 });
    assert.deepEqual(words(out.acked), ['a', 'b']);
    assert.equal(exec.metrics().failures, 1);
  });

  it('after a rollback that could not reload, data tuples wait until one does', async () => {
    const store = new FlakyStateStore();
    const { exec, bolt, out } = await started({ store });
    await exec.execute(cp(0, 'INITSTATE'));
    await exec.execute(word('a'));
    store.down = true;
    const rb = cp(1, 'ROLLBACK');
    await exec.execute(rb);
    assert.deepEqual(words(out.failed), ['a']);
    assert.ok(out.failed.includes(rb));
    await exec.execute(word('a')); // the replay: must not count on a state that still holds the first a
    assert.equal(bolt.calls.filter((c) => c === 'execute a').length, 1);
    store.down = false;
    await exec.execute(cp(1, 'ROLLBACK'));
    await exec.execute(cp(0, 'INITSTATE'));
    assert.equal(bolt.calls.filter((c) => c === 'execute a').length, 2);
    assert.equal(bolt.counts!.get('a'), 1);
  });

  it('leaves out an entry that does not decode, reporting the key, the component and the task', async () => {
    const store = new MemoryStateStore();
    await store.write('{test:count:0}', [
      [new Uint8Array([0xa1, 0x61]), new Uint8Array([2])],
      [new Uint8Array([0xa1, 0x62]), new Uint8Array([0xc1, 0xff])], // 0xc1 is never msgpack
      [new Uint8Array([0xc1]), new Uint8Array([1])], // a key that is that byte alone
    ]);
    const { exec, bolt, out } = await started({ store });
    await exec.execute(cp(0, 'INITSTATE'));
    assert.deepEqual(Object.fromEntries(bolt.counts!), { a: 2 });
    const err = out.errors[0] as StateCorruptError;
    assert.equal(err.code, 'HSTORM_ERR_STATESTORE_CORRUPT');
    assert.equal(err.component, 'count');
    assert.equal(err.task, 3);
    assert.match(err.message, /state of "count" task 3: namespace "\{test:count:0\}" key "\\xa1b".*the value of key "b" \(2 bytes: "\\xc1\\xff"\) does not decode/);
    assert.match((out.errors[1] as Error).message, /key "\\xc1".*its key does not decode/);
    assert.equal(exec.metrics().corruptEntries, 2);
  });

  it('refuses an emit without anchors, naming the component and stream; anchors: [] is on purpose', async () => {
    const { exec, bolt } = await started();
    await exec.execute(cp(0, 'INITSTATE'));
    bolt.unanchored = true;
    assert.throws(() => exec.execute(word('a')), (err: unknown) => {
      assert.equal((err as { code: string }).code, 'HSTORM_ERR_TOPOLOGY_EMIT');
      assert.match((err as Error).message, /component "count" emitted on stream "default" without anchors/);
      return true;
    });
    bolt.out.emit(['x', 1], { anchors: [] });
  });
});

describe('KeyValueState', () => {
  it('is a map with Storm\'s get(key, default), composite keys by content, and iteration', () => {
    const s = new StoreKeyValueState<unknown, unknown>(new MemoryStateStore(), 'n', { component: 'c', task: 1, onCorrupt: () => undefined });
    assert.equal(s.get('x'), undefined);
    assert.equal(s.get('x', 0), 0);
    s.put(['user', 7], { visits: 1 });
    assert.deepEqual(s.get(['user', 7]), { visits: 1 });
    s.put(1, 'one');
    s.put('1', 'string one');
    s.put('\u0001s1', 'escaped');
    assert.equal(s.get(1), 'one');
    assert.equal(s.get('1'), 'string one');
    assert.equal(s.size, 4);
    assert.equal(s.delete(1), 'one');
    assert.equal(s.has(1), false);
    assert.deepEqual([...s.keys()], [['user', 7], '1', '\u0001s1']);
    assert.throws(() => s.put('k', undefined), /undefined is not a value/);
    assert.throws(() => s.put(null, 1), /a state key must be/);
  });

  it('saves what it holds when prepared, values of any msgpack type, and forgets changes after it on rollback', async () => {
    const store = new MemoryStateStore();
    const owner = { component: 'c', task: 1, onCorrupt: () => undefined };
    const s = new StoreKeyValueState<string, unknown>(store, 'n', owner);
    s.put('bytes', new Uint8Array([1, 2, 3]));
    s.put('obj', { a: [1, 'x'], big: 2n ** 60n });
    s.put('gone', 1);
    await s.prepare(1);
    s.put('after', true);
    s.delete('gone');
    await s.commit(1);
    const r = new StoreKeyValueState<string, unknown>(store, 'n', owner);
    await r.load();
    assert.deepEqual([...r.keys()].sort(), ['bytes', 'gone', 'obj']);
    assert.deepEqual([...(r.get('bytes') as Uint8Array)], [1, 2, 3]);
    assert.deepEqual(r.get('obj'), { a: [1, 'x'], big: 2n ** 60n });
    await s.rollback();
    assert.deepEqual([...s.keys()].sort(), ['bytes', 'gone', 'obj'], 'after and the delete forgotten');
  });
});

describe('CheckpointForwarder', () => {
  class Upper extends BasicBolt {
    throws = false;
    execute(t: Tuple, out: BasicOutputCollector): void {
      if (this.throws) throw new Error('boom');
      out.emit([t.getStringByField('word').toUpperCase()]);
    }
    override declareOutputFields(d: OutputFieldsDeclarer): void {
      d.declare(['word']);
    }
  }

  it('keeps a BasicBolt\'s anchoring and acking, and forwards a checkpoint once it came from every input task', async () => {
    const inner = new Upper();
    const f = new CheckpointForwarder(inner);
    const ctx = fakeContext({ component: 'count', taskId: 3, tasks: [3], def: def(2), tasksOf: (c) => (c === CHECKPOINT_COMPONENT ? [8, 9] : []) });
    const out = recorder();
    await f.prepare({}, ctx, out);
    const t = word('a');
    await f.execute(t);
    assert.deepEqual(out.emits[0], { values: ['A'], options: { stream: 'default', anchors: t } });
    assert.deepEqual(out.acked, [t]);
    inner.throws = true;
    assert.throws(() => f.execute(word('b')), /boom/, 'a throw reaches the worker, which fails the tuple');
    const c1 = cp(5, 'PREPARE', 8);
    const c2 = cp(5, 'PREPARE', 9);
    await f.execute(c1);
    assert.equal(out.emits.length, 1);
    await f.execute(c2);
    assert.deepEqual(out.emits[1], { values: [5, 'PREPARE'], options: { stream: CHECKPOINT_STREAM, anchors: c2 } });
    assert.ok(out.acked.includes(c1) && out.acked.includes(c2));
  });
});

describe('TopologyBuilder with a stateful bolt', () => {
  class Split extends BasicBolt {
    execute(): void {}
    override declareOutputFields(d: OutputFieldsDeclarer): void {
      d.declare(['word']);
    }
  }

  const build = () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words(), 2);
    b.setBolt('split', () => new Split(), 2).shuffleGrouping('words');
    b.setBolt('count', () => new Counter(), 3).fieldsGrouping('split', ['word']);
    return b.createTopology({ 'topology.workers': 2 });
  };

  it('adds the checkpoint spout last and wires its stream through every bolt, from each component it reads', () => {
    const t = build();
    const ids = t.def.components.map((c) => c.id);
    assert.deepEqual(ids, ['words', 'split', 'count', CHECKPOINT_COMPONENT], 'user components keep their place (and task ids)');
    const byId = new Map(t.def.components.map((c) => [c.id, c]));
    assert.deepEqual(byId.get(CHECKPOINT_COMPONENT)!.parallelism, 1);
    assert.deepEqual(byId.get('split')!.inputs.filter((i) => i.stream === CHECKPOINT_STREAM), [{ component: CHECKPOINT_COMPONENT, stream: CHECKPOINT_STREAM, grouping: { type: 'all' } }]);
    assert.deepEqual(byId.get('count')!.inputs.filter((i) => i.stream === CHECKPOINT_STREAM), [{ component: 'split', stream: CHECKPOINT_STREAM, grouping: { type: 'all' } }]);
    for (const c of ['split', 'count']) assert.ok(byId.get(c)!.streams.some((s) => s.id === CHECKPOINT_STREAM && s.fields.join() === 'txid,action'));
    assert.deepEqual(byId.get('count')!.state, { messageIdField: null, maxEventsInMemory: null });
    assert.equal(byId.get('split')!.state, undefined);
    assert.ok(t.factories.get('split')!() instanceof CheckpointForwarder);
    assert.ok(t.factories.get('count')!() instanceof StatefulBoltExecutor);
    assert.ok(t.factories.get(CHECKPOINT_COMPONENT)!() instanceof CheckpointSpout);
  });

  it('leaves a topology without stateful bolts as it was', () => {
    const b = new TopologyBuilder();
    b.setSpout('words', () => new Words(), 1);
    b.setBolt('split', () => new Split(), 1).shuffleGrouping('words');
    const t = b.createTopology();
    assert.deepEqual(t.def.components.map((c) => c.id), ['words', 'split']);
    assert.ok(!(t.factories.get('split')!() instanceof CheckpointForwarder));
  });

  it('refuses, at submit, a checkpoint interval not below a spout\'s message timeout, and acking off — naming both values', () => {
    const t = build();
    const conf = (c: Record<string, unknown>) => buildConfig([c], { allowUserKeys: true });
    validateStateBounds(t.def, conf({ 'topology.message.timeout.secs': 30 }));
    assert.throws(
      () => validateStateBounds(t.def, conf({ 'topology.message.timeout.secs': 2, 'topology.state.checkpoint.interval.ms': 2000 })),
      (err: unknown) => {
        assert.equal((err as { code: string }).code, 'HSTORM_ERR_TOPOLOGY_STATE');
        assert.match((err as Error).message, /topology.state.checkpoint.interval.ms = 2000 is not below topology.message.timeout.secs = 2/);
        return true;
      },
    );
    const perSpout = { ...t.def, components: t.def.components.map((c) => (c.id === 'words' ? { ...c, config: { 'topology.message.timeout.secs': 1 } } : c)) };
    assert.throws(() => validateStateBounds(perSpout, conf({})), /not below topology.message.timeout.secs = 1 \(spout "words"\)/);
    assert.throws(() => validateStateBounds(t.def, conf({ 'topology.acker.executors': 0 })), /topology.acker.executors = 0 turns acking off/);
    assert.throws(() => buildConfig([{ 'topology.state.checkpoint.interval.ms': 50 }], { allowUserKeys: true }), /an integer ≥ 100/);
    assert.throws(() => buildConfig([{ 'topology.state.provider': 'hbase' }], { allowUserKeys: true }), /one of "memory", "redis"/);
    assert.throws(() => buildConfig([{ 'topology.state.provider.config': { urll: 'x' } }], { allowUserKeys: true }), /topology.state.provider.config/);
  });
});

describe('StatefulBolt under load', () => {
  it('holds and then acks more inputs in one checkpoint than a call takes arguments (300 000)', async () => {
    const { exec, out } = await started();
    await exec.execute(cp(0, 'INITSTATE'));
    for (let i = 0; i < 300_000; i++) void exec.execute(word(`w${i % 7}`));
    await exec.execute(cp(1, 'PREPARE'));
    await exec.execute(cp(1, 'COMMIT'));
    assert.equal(out.acked.filter((t) => t.sourceStreamId === 'default').length, 300_000);
    assert.equal(exec.metrics().failures, 0);
  });
});
