/**
 * The worker's receive path (batch-receiver.ts, wired by TaskWiring) over a real ZeroMQ socket:
 * each tuple of a batch gets the fields of its own source and stream, and a
 * tuple from an unknown task or on an undeclared stream is dropped and
 * counted without disturbing the tuples around it (the path resolves a run
 * of equal (source, stream) pairs once, so a mixed batch is the case to pin);
 * and the frame's ack runs reach the acker and spout tasks that take their
 * kind, while a run or tuple for a task that takes none is dropped and counted.
 */
import assert from 'node:assert/strict';
import * as zmq from 'zeromq';
import { TaskWiring } from '../../../worker/task-wiring.js';
import { workerSettings } from '../../../worker/worker-settings.js';
import { TopologyBuilder, type StormTopology } from '../../../topology-sdk/topology-builder.js';
import { BasicBolt, Spout } from '../../../topology-sdk/components.js';
import type { OutputFieldsDeclarer } from '../../../topology-sdk/output-declarer.js';
import type { Tuple } from '../../../topology-sdk/tuple.js';
import { computeTasks } from '../../../common/topology-def.js';
import { defaultConfig } from '../../../common/config/config.js';
import { silentLogger } from '../../../common/logger.js';
import { encodeBatch, type WireTuple } from '../../../worker/transport/wire-codec.js';
import { stampOf } from '../../../worker/transport/frame-stamp.js';
import { BatchBuilder } from '../../../worker/transport/batch-builder.js';
import { encodeFrame } from '../../../worker/transport/frame-encoder.js';
import { ACK, ACKED, INIT } from '../../../worker/acking/ack-messages.js';
import type { AckerExecutor } from '../../../worker/acking/acker-executor.js';
import type { SpoutExecutor } from '../../../worker/executor/spout-executor.js';
import type { Executor } from '../../../worker/executor/executor.js';
import { ACKER_COMPONENT } from '../../../common/topology-def.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { freePort } from '../../helpers/ports.js';
import { waitFor } from '../../helpers/wait-for.js';
import { ManualClock } from '../../helpers/manual-clock.js';
import { treeStartOf } from '../../../worker/transport/frame-tree-time.js';
import { sections, H_ANCHORS, H_ACK_WORDS, H_NAME_BYTES, H_RUNS, H_TUPLES, H_VALUES_BYTES } from '../../../worker/transport/frame-layout.js';

class TwoStreamSpout extends Spout {
  nextTuple(): void {}
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['n']);
    d.declareStream('side', ['a', 'b']);
  }
}

/** A peer worker of the same topology (wiringOf's 'recv-1') at epoch 0: what the fence admits. */
const PEER = stampOf('recv-1', 'sup:1', 0);

const received: { stream: string; source: string; fields: string[]; values: unknown[] }[] = [];

class RecordingBolt extends BasicBolt {
  execute(t: Tuple): void {
    received.push({ stream: t.sourceStreamId, source: t.sourceComponent, fields: [...t.fields.names], values: [...t.values] });
  }
}

/** A worker's wiring of `topology` on `port`, with nothing started. */
function wiringOf(topology: StormTopology, port: number, clock?: ManualClock): TaskWiring {
  const config = { ...defaultConfig(), ...topology.def.config };
  return new TaskWiring({
    launch: { topologyId: 'recv-1', supervisorId: 'sup', host: '127.0.0.1', port, modulePath: '/none', state: 'ipc', clusterConfig: {}, gpu: null },
    log: silentLogger(),
    def: topology.def,
    topology,
    selfKey: 'sup:' + port,
    settings: workerSettings(config, defaultConfig()),
    config,
    currentConfig: () => config,
    contextFor: (component, task) => fakeContext({ component, taskId: task }),
    clock,
  });
}

/** src (both streams) → sink, no ackers, wired on a free port: the tasks, the port and the wiring. */
async function srcToSink(): Promise<{ src: number; sink: number; port: number; wiring: TaskWiring }> {
  const b = new TopologyBuilder();
  b.setSpout('src', () => new TwoStreamSpout(), 1);
  b.setBolt('sink', () => new RecordingBolt(), 1).shuffleGrouping('src').shuffleGrouping('src', 'side');
  const topology = b.createTopology({ 'topology.acker.executors': 0 });
  const tasks = computeTasks(topology.def, 0);
  const port = await freePort();
  return { src: tasks.find((t) => t.component === 'src')!.task, sink: tasks.find((t) => t.component === 'sink')!.task, port, wiring: wiringOf(topology, port) };
}

/** A sink whose execute waits for the gate: while it is shut the sink's queue fills. */
let gate: Promise<void> = Promise.resolve();
let openGate: () => void = () => {};
function shutGate(): void {
  gate = new Promise<void>((r) => (openGate = r));
}

class GatedBolt extends BasicBolt {
  async execute(t: Tuple): Promise<void> {
    await gate;
    received.push({ stream: t.sourceStreamId, source: t.sourceComponent, fields: [...t.fields.names], values: [...t.values] });
  }
}

interface GatedSink {
  src: number;
  sink: number;
  ex: Executor;
  wiring: TaskWiring;
  push: zmq.Push;
}

/**
 * Runs `body` against src → a gated sink with a queue of 4 (no ackers), its executor started on a free port, the gate
 * shut and a PUSH socket connected to it; `heldByPeer`: the worker behaves as if an executor of it waited for a peer
 * from its first turn on (heldByPeerFromNowOn); `withSpout`: the worker runs the src spout too (it takes acks).
 * Closes everything after.
 */
async function withGatedSink(opts: { heldByPeer?: boolean; withSpout?: boolean }, body: (g: GatedSink) => Promise<void>): Promise<void> {
  const b = new TopologyBuilder();
  b.setSpout('src', () => new TwoStreamSpout(), 1);
  b.setBolt('sink', () => new GatedBolt(), 1).shuffleGrouping('src');
  const topology = b.createTopology({ 'topology.acker.executors': 0, 'topology.executor.receive.buffer.size': 4 });
  const tasks = computeTasks(topology.def, 0);
  const [src, sink] = ['src', 'sink'].map((c) => tasks.find((t) => t.component === c)!.task) as [number, number];
  const port = await freePort();
  const wiring = wiringOf(topology, port);
  const push = new zmq.Push({ linger: 0 });
  received.length = 0;
  shutGate();
  try {
    await wiring.transport.bind();
    const executors = [{ component: 'sink', task: sink }, ...(opts.withSpout ? [{ component: 'src', task: src }] : [])];
    wiring.buildExecutors({ supervisorId: 'sup', host: '127.0.0.1', port, gpu: null, executors, reason: 'test' });
    for (const ex of wiring.executorList) await ex.start();
    if (opts.heldByPeer) {
      const turns = heldByPeerFromNowOn(wiring);
      await waitFor('a turn of the run loop since', () => turns() > 0, 20_000);
    }
    push.connect(`tcp://127.0.0.1:${port}`);
    await body({ src, sink, ex: wiring.executorOf(sink)!, wiring, push });
  } finally {
    openGate();
    push.close();
    for (const ex of wiring.executorList) await ex.stop();
    await wiring.transport.close();
  }
}

/**
 * From the next turn of its run loop on, `wiring` behaves as if an executor of it were held back for a task in
 * another worker (the seam: executor-transfer.ts takeHeldByPeer, asked after each turn); returns the turns counted.
 */
function heldByPeerFromNowOn(wiring: TaskWiring): () => number {
  let turns = 0;
  (wiring as unknown as { transfer: { takeHeldByPeer(): boolean } }).transfer.takeHeldByPeer = () => {
    turns++;
    return true;
  };
  wiring.wake();
  return () => turns;
}

/** A frame of `values.length` tuples from src to sink, each value its own tuple. */
function framed(sink: number, src: number, values: number[]): Buffer {
  return encodeBatch(1, values.map((v): WireTuple => [sink, src, 'default', [v], null]), PEER);
}

/** `frame` well-formed in every column but the values: filled with 0xc1, a byte msgpack never uses. */
function withBadValues(frame: Buffer): Buffer {
  const h = new Uint32Array(frame.buffer, frame.byteOffset, 12);
  const at = sections(h[H_TUPLES]!, h[H_ANCHORS]!, h[H_RUNS]!, h[H_ACK_WORDS]!, h[H_NAME_BYTES]!, h[H_VALUES_BYTES]!);
  return frame.fill(0xc1, at.values, at.end);
}

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('worker receive path (TaskWiring)', () => {
  it('gives each tuple of a mixed batch its own fields, and drops and counts unknown sources and undeclared streams', async () => {
    const { src, sink, port, wiring } = await srcToSink();
    const push = new zmq.Push({ linger: 0 });
    try {
      await wiring.transport.bind();
      wiring.buildExecutors({ supervisorId: 'sup', host: '127.0.0.1', port, gpu: null, executors: [{ component: 'sink', task: sink }], reason: 'test' });
      for (const ex of wiring.executorList) await ex.start();
      push.connect(`tcp://127.0.0.1:${port}`);
      const batch: WireTuple[] = [
        [sink, src, 'default', [1], null],
        [sink, src, 'nope', [2], null], // undeclared: dropped
        [sink, src, 'default', [3], null],
        [sink, 99_999, 'default', [4], null], // no such task: dropped
        [sink, src, 'side', [5, 'x'], null],
        [sink, src, 'default', [6], null],
      ];
      await push.send(encodeBatch(1, batch, PEER));
      await waitFor('the four good tuples executed', () => received.length >= 4, 20_000);
      assert.deepEqual(received, [
        { stream: 'default', source: 'src', fields: ['n'], values: [1] },
        { stream: 'default', source: 'src', fields: ['n'], values: [3] },
        { stream: 'side', source: 'src', fields: ['a', 'b'], values: [5, 'x'] },
        { stream: 'default', source: 'src', fields: ['n'], values: [6] },
      ]);
      assert.equal(wiring.droppedTuples, 2);
    } finally {
      push.close();
      for (const ex of wiring.executorList) await ex.stop();
      await wiring.transport.close();
    }
  });
  it("delivers a frame's ack runs to the tasks that take their kind, and drops runs and tuples for tasks that take none", async () => {
    received.length = 0;
    const b = new TopologyBuilder();
    b.setSpout('src', () => new TwoStreamSpout(), 1);
    b.setBolt('sink', () => new RecordingBolt(), 1).shuffleGrouping('src');
    const topology = b.createTopology({ 'topology.acker.executors': 1 });
    const tasks = computeTasks(topology.def, 1);
    const taskOf = (c: string) => tasks.find((t) => t.component === c)!.task;
    const [src, sink, acker] = [taskOf('src'), taskOf('sink'), taskOf(ACKER_COMPONENT)];
    const port = await freePort();
    const wiring = wiringOf(topology, port);
    const push = new zmq.Push({ linger: 0 });
    try {
      await wiring.transport.bind();
      const executors = [
        { component: 'src', task: src },
        { component: 'sink', task: sink },
        { component: ACKER_COMPONENT, task: acker },
      ];
      wiring.buildExecutors({ supervisorId: 'sup', host: '127.0.0.1', port, gpu: null, executors, reason: 'test' });
      for (const ex of wiring.executorList) await ex.start();
      const ackerEx = wiring.executorOf(acker) as AckerExecutor;
      const spoutEx = wiring.executorOf(src) as SpoutExecutor;
      push.connect(`tcp://127.0.0.1:${port}`);
      const frame = new BatchBuilder();
      frame.addAck(acker, src, INIT, 1, 0, 5, 0); // the spout's init: taken
      frame.addAck(acker, sink, ACK, 1, 0, 5, 0); // the bolt's ack: taken, the tree completes
      frame.addAck(sink, acker, ACK, 2, 0, 6, 0); // a bolt takes no ack messages: dropped
      frame.addAck(src, acker, ACKED, 3, 0, 0, 0); // a reply for a root not in flight: taken, nothing to do
      frame.addAck(99_999, src, ACK, 4, 0, 7, 0); // no such task: dropped
      frame.addAck(acker, 99_999, ACK, 1, 0, 8, 0); // from no such task: dropped
      frame.addTuple(sink, src, '__ack_ack', [1n, 5n], null); // the ack protocol as a tuple: dropped
      frame.addTuple(src, src, 'default', [0], null); // a spout takes no tuples: dropped
      frame.addTuple(acker, src, 'default', [0], null); // nor an acker
      frame.addTuple(sink, src, 'default', [7], null);
      await push.send(encodeFrame(1, frame, PEER));
      await waitFor('the good tuple executed', () => received.length >= 1, 20_000);
      await waitFor('the tree acked', () => ackerEx.metrics.acked === 1, 20_000);
      assert.deepEqual(received, [{ stream: 'default', source: 'src', fields: ['n'], values: [7] }]);
      assert.equal(ackerEx.pendingTrees, 0);
      assert.equal(wiring.droppedTuples, 6);
      assert.equal(wiring.droppedFrames, 0);
      await waitFor('the spout drained its replies (none was in flight)', () => spoutEx.ackQueue.length === 0, 20_000);
    } finally {
      push.close();
      for (const ex of wiring.executorList) await ex.stop();
      await wiring.transport.close();
    }
  });

  it('fences frames: another topology\'s and an older epoch\'s from a worker the assignment no longer holds are dropped and counted, whole', async () => {
    const { src, sink, port, wiring } = await srcToSink();
    const push = new zmq.Push({ linger: 0 });
    received.length = 0;
    try {
      await wiring.transport.bind();
      const self = { supervisorId: 'sup', host: '127.0.0.1', port, gpu: null, executors: [{ component: 'sink', task: sink }], reason: 'test' };
      // Epoch 2 holds this worker and sup-b:6700; sup-c:6700 (which held the spout at epoch 1) is gone.
      const other = { ...self, supervisorId: 'sup-b', port: 6700, executors: [{ component: 'src', task: src }] };
      wiring.applyAssignment({ topologyId: 'recv-1', epoch: 2, workers: [self, other], unassigned: [], scheduler: 'even', createdAt: 0 });
      wiring.buildExecutors(self);
      for (const ex of wiring.executorList) await ex.start();
      push.connect(`tcp://127.0.0.1:${port}`);
      const send = (value: number, stamp: ReturnType<typeof stampOf>) => push.send(encodeBatch(1, [[sink, src, 'default', [value], null]], stamp));
      await send(1, stampOf('recv-1', 'sup-c:6700', 1)); // stranded: older epoch, no slot any more
      await send(2, stampOf('other-1', 'sup-b:6700', 2)); // another topology
      await send(3, stampOf('recv-1', 'sup-b:6700', 1)); // older epoch, still assigned: within the grace
      await send(4, stampOf('recv-1', 'sup-c:6700', 3)); // a newer epoch: admitted
      await send(5, stampOf('recv-1', 'sup-b:6700', 2));
      await waitFor('the admitted tuples executed', () => received.length >= 3, 20_000);
      assert.deepEqual(received.map((r) => r.values[0]), [3, 4, 5]);
      assert.equal(wiring.staleFrames, 1);
      assert.equal(wiring.droppedFrames, 2, 'the stale frame and the foreign one');
      assert.equal(wiring.droppedTuples, 0);
    } finally {
      push.close();
      for (const ex of wiring.executorList) await ex.stop();
      await wiring.transport.close();
    }
  });

  it("drops a frame's tracked tuples whose trees are older than the message timeout plus the margin, counted; its untracked ones and fresh frames run", async () => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new TwoStreamSpout(), 1);
    b.setBolt('sink', () => new RecordingBolt(), 1).shuffleGrouping('src');
    // Timeout 5 s, margin 2 s: a tree that started more than 7 s ago is stale.
    const topology = b.createTopology({ 'topology.acker.executors': 0, 'topology.message.timeout.secs': 5, 'topology.stale.tuple.margin.secs': 2 });
    const tasks = computeTasks(topology.def, 0);
    const [src, sink] = ['src', 'sink'].map((c) => tasks.find((t) => t.component === c)!.task) as [number, number];
    const port = await freePort();
    const clock = new ManualClock(1_764_110_000_000);
    const wiring = wiringOf(topology, port, clock);
    const push = new zmq.Push({ linger: 0 });
    received.length = 0;
    try {
      await wiring.transport.bind();
      wiring.buildExecutors({ supervisorId: 'sup', host: '127.0.0.1', port, gpu: null, executors: [{ component: 'sink', task: sink }], reason: 'test' });
      for (const ex of wiring.executorList) await ex.start();
      push.connect(`tcp://127.0.0.1:${port}`);
      const frame = (startedMs: number, values: number[]): Buffer => {
        const batch = new BatchBuilder();
        batch.addTuple(sink, src, 'default', [values[0]], [1, 2, 3, 4], treeStartOf(startedMs));
        batch.addTuple(sink, src, 'default', [values[1]], null); // untracked: no spout replays it, it always runs
        batch.addTuple(sink, src, 'default', [values[2]], [5, 6, 7, 8], treeStartOf(startedMs - 500));
        return encodeFrame(1, batch, PEER);
      };
      await push.send(frame(clock.now() - 9000, [1, 2, 3])); // a cut link's backlog: replayed at the spout already
      await push.send(frame(clock.now() - 4000, [4, 5, 6])); // timed out soon, not yet: runs
      await waitFor('the fresh frame and the untracked tuple executed', () => received.length >= 4, 20_000);
      assert.deepEqual(received.map((r) => r.values[0]), [2, 4, 5, 6]);
      assert.equal(wiring.staleTuples.dropped, 2);
      assert.equal(wiring.executorOf(sink)!.metrics.staleTuples, 2);
      assert.equal(wiring.droppedTuples, 0, 'stale tuples are counted apart from malformed ones');
      assert.equal(wiring.droppedFrames, 0);
    } finally {
      push.close();
      for (const ex of wiring.executorList) await ex.stop();
      await wiring.transport.close();
    }
  });

  describe('a task whose queue is full (per-task backpressure)', () => {
    it('stops reading when its only task is full and nothing of the worker waits for a peer: the rest of the frame that filled the queue is parked, and every tuple runs in order once it drains', () =>
      withGatedSink({}, async ({ src, sink, ex, wiring, push }) => {
        // One tuple in execute, four queued, one parked: the queue is full, so reading stops.
        await push.send(framed(sink, src, range(0, 6)));
        await push.send(framed(sink, src, range(6, 6)));
        await waitFor('the first frame parked its last tuple', () => ex.parked.tuples === 1, 20_000);
        assert.equal(ex.queue.length, 4);
        const bp = wiring.backpressureStats();
        assert.equal(bp.readPauses, 1);
        assert.equal(bp.overloadEvents, 0, 'a worker that stops reading holds its peers by the link: no status');
        assert.equal(bp.linkPauses, 0);
        openGate();
        await waitFor('all twelve tuples executed', () => received.length === 12, 20_000);
        assert.deepEqual(received.map((r) => r.values[0]), range(0, 12), 'in the order they were sent');
        assert.equal(ex.parked.tuples, 0);
        assert.equal(wiring.droppedTuples, 0);
      }));

    it('keeps reading while an executor of this worker waits for a peer: frames for the full task are parked whole with their values unread, the task is announced, and every tuple runs in order', () =>
      withGatedSink({ heldByPeer: true }, async ({ src, sink, ex, wiring, push }) => {
        await push.send(framed(sink, src, range(0, 6)));
        await waitFor('the first tuple in execute', () => ex.queue.length === 4 && ex.parked.tuples === 1, 20_000);
        await push.send(framed(sink, src, range(6, 6)));
        await push.send(framed(sink, src, range(12, 6)));
        await waitFor('both later frames read and parked', () => wiring.transport.receivedBatches === 3 && ex.parked.tuples === 13, 20_000);
        assert.equal(ex.parked.lastFrame()!.valuesDeferred, true, 'a frame parked whole keeps its values as bytes');
        assert.equal(ex.parked.peek()!.frame.valuesDeferred, false, 'the first frame, parked in part, was unpacked');
        const bp = wiring.backpressureStats();
        assert.equal(bp.readPauses, 0, 'reading never stopped');
        assert.deepEqual(bp.overloadedTasks, [sink], 'the full task is announced to the peers instead');
        assert.equal(bp.overloadEvents, 1);
        // Parked: two of the first frame (it came before a tuple went into execute), then the later frames' twelve.
        assert.equal(bp.overflowTuples, 14);
        assert.equal(bp.overflowMax, 13);
        openGate();
        await waitFor('all eighteen tuples executed', () => received.length === 18, 20_000);
        assert.deepEqual(received.map((r) => r.values[0]), range(0, 18), 'in the order they were sent');
        await waitFor('the task relieved once drained', () => wiring.backpressureStats().overloadedTasks.length === 0, 20_000);
        assert.equal(wiring.droppedTuples, 0);
      }));

    it('keeps reading when another task of the worker could take what comes (a spout, which takes acks): the full task is announced instead', () =>
      withGatedSink({ withSpout: true }, async ({ src, sink, ex, wiring, push }) => {
        await push.send(framed(sink, src, range(0, 6)));
        await push.send(framed(sink, src, range(6, 6)));
        await waitFor('both frames read, the second parked', () => wiring.transport.receivedBatches === 2 && ex.parked.tuples >= 7, 20_000);
        const bp = wiring.backpressureStats();
        assert.equal(bp.readPauses, 0);
        assert.deepEqual(bp.overloadedTasks, [sink]);
        openGate();
        await waitFor('all twelve tuples executed', () => received.length === 12, 20_000);
        assert.deepEqual(received.map((r) => r.values[0]), range(0, 12), 'in the order they were sent');
      }));

    it('a frame whose values do not unpack, for a task with room, is dropped whole and counted, its ack runs too; the next frame runs', () =>
      withGatedSink({}, async ({ src, sink, wiring, push }) => {
        openGate();
        const b = new BatchBuilder();
        for (const v of [100, 101]) b.addTuple(sink, src, 'default', [v], null);
        b.addAck(sink, src, ACK, 1, 2, 3, 4); // a run the sink would refuse, counted as dropped if it were taken
        await push.send(withBadValues(encodeFrame(1, b, PEER)));
        await push.send(framed(sink, src, [1, 2]));
        await waitFor('the good frame executed', () => received.length === 2, 20_000);
        assert.deepEqual(received.map((r) => r.values[0]), [1, 2]);
        assert.equal(wiring.droppedFrames, 1);
        assert.equal(wiring.droppedTuples, 0, 'neither its tuples nor its ack run were taken');
      }));

    it('a parked frame whose values turn out not to decode loses its own tuples, counted; the frames behind it run', () =>
      withGatedSink({ heldByPeer: true }, async ({ src, sink, ex, wiring, push }) => {
        await push.send(framed(sink, src, range(0, 5)));
        await waitFor('the queue full', () => ex.queue.length === 4, 20_000);
        await push.send(withBadValues(framed(sink, src, range(100, 3))));
        await push.send(framed(sink, src, range(5, 3)));
        await waitFor('both frames parked', () => wiring.transport.receivedBatches === 3 && ex.parked.tuples === 6, 20_000);
        assert.equal(wiring.droppedFrames, 0, 'parked with its values unread');
        openGate();
        await waitFor('the good tuples executed', () => received.length === 8, 20_000);
        assert.deepEqual(received.map((r) => r.values[0]), range(0, 8));
        assert.equal(wiring.droppedTuples, 3, "the bad frame's three tuples");
        assert.equal(ex.parked.tuples, 0);
      }));
  });
});
