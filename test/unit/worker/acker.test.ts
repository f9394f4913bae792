import assert from 'node:assert/strict';
import { AckerExecutor } from '../../../worker/acking/acker-executor.js';
import { BoltExecutor } from '../../../worker/executor/bolt-executor.js';
import { SpoutExecutor } from '../../../worker/executor/spout-executor.js';
import type { Executor } from '../../../worker/executor/executor.js';
import type { ExecutorHost, LocalAcker } from '../../../worker/executor/executor-host.js';
import { ACK, ACKED, FAIL, FAILED, INIT, RESET, ackArity, type AckKind } from '../../../worker/acking/ack-messages.js';
import { AckTable } from '../../../worker/acking/ack-table.js';
import { ACKER_COMPONENT, computeTasks, type ComponentDef, type TopologyDef } from '../../../common/topology-def.js';
import { defaultConfig, withDefaults } from '../../../common/config/config.js';
import { componentSettings, type ComponentSettings } from '../../../worker/worker-settings.js';
import { silentLogger } from '../../../common/logger.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { RuntimeTuple, type AnchorIds } from '../../../worker/executor/runtime-tuple.js';
import type { Tuple } from '../../../topology-sdk/tuple.js';
import { Bolt, Spout, type Conf, type FailReason, type OutputCollector, type SpoutOutputCollector } from '../../../topology-sdk/components.js';
import type { OutputFieldsDeclarer } from '../../../topology-sdk/output-declarer.js';
import type { ComponentPlacement, TopologyContext } from '../../../topology-sdk/context.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { idBucket, idOfHalves, randomHalf, randomLowInBucket, writeHalvesOf, writeRandomId } from '../../../worker/acking/ack-ids.js';
import { Xoshiro128 } from '../../../worker/acking/xoshiro128.js';
import type { PendingMessages } from '../../../worker/acking/pending-messages.js';
import { waitFor } from '../../helpers/wait-for.js';

interface Sent {
  dest: number;
  srcComponent: string;
  srcTask: number;
  stream: string;
  values: unknown[];
  anchors: AnchorIds;
}

/** One ack-protocol message sent: its kind, root and (INIT, ACK) value, the ids as bigints for reading. */
interface SentAck {
  dest: number;
  srcTask: number;
  kind: AckKind;
  root: bigint;
  val?: bigint;
}

/** 64-bit ids as the words of ack messages (low half, high half each). */
function words(...ids: bigint[]): Uint32Array {
  const out: number[] = [];
  ids.forEach((id, i) => writeHalvesOf(id, out, 2 * i));
  return Uint32Array.from(out);
}

/**
 * A worker in miniature: every task lives here, `send` drops the tuple into
 * the destination executor's queue at once (no encoding), and `drain` runs the
 * executors until none can make progress. `wake` (timers, async user code)
 * schedules a drain on the next turn, as the real run loop does.
 */
class FakeHost implements ExecutorHost {
  readonly topologyId = 'test-1';
  readonly log = silentLogger();
  readonly sent: Sent[] = [];
  readonly sentAcks: SentAck[] = [];
  readonly executors = new Map<number, Executor>();
  private readonly tasks;
  private readonly config: Record<string, unknown>;
  /** Every component's settings here: the test's config over the defaults (the Worker compiles one per component). */
  readonly settings: ComponentSettings;
  private scheduled = false;

  constructor(
    readonly def: TopologyDef,
    config: Record<string, unknown> = {},
    ackers = 1,
  ) {
    this.tasks = computeTasks(def, ackers);
    this.config = { ...defaultConfig(), ...config };
    this.settings = componentSettings(withDefaults(this.config));
  }

  tasksOf(component: string): readonly number[] {
    return this.tasks.filter((t) => t.component === component).map((t) => t.task);
  }

  isLocal(): boolean {
    return true;
  }

  /** Tasks no worker runs (the scheduler left them unassigned), for the fail-fast tests. */
  readonly unplaced = new Set<number>();

  isPlaced(task: number): boolean {
    return !this.unplaced.has(task);
  }

  placementOf(component: string): ComponentPlacement {
    const tasks = this.tasksOf(component);
    const unplaced = tasks.filter((t) => this.unplaced.has(t));
    return { running: tasks.filter((t) => !this.unplaced.has(t)), unplaced, reason: unplaced.length ? 'no GPU with a free slot (test)' : null };
  }

  configOf(): Readonly<Record<string, unknown>> {
    return this.config;
  }

  fieldsOf(component: string, stream: string): Fields {
    const f = this.def.components.find((c) => c.id === component)?.streams.find((s) => s.id === stream)?.fields;
    if (!f) throw new Error(`stream "${stream}" of "${component}" is not declared`);
    return new Fields(f);
  }

  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: AnchorIds): void {
    this.sent.push({ dest, srcComponent, srcTask, stream, values, anchors });
    this.executors.get(dest)?.enqueue(new RuntimeTuple(values, this.fieldsOf(srcComponent, stream), srcComponent, stream, srcTask, anchors));
  }

  sendAck(dest: number, srcTask: number, kind: AckKind, rootLo: number, rootHi: number, valLo: number, valHi: number): void {
    this.sendAcks(dest, srcTask, kind, ackArity(kind) === 4 ? Uint32Array.of(rootLo, rootHi, valLo, valHi) : Uint32Array.of(rootLo, rootHi));
  }

  sendAcks(dest: number, srcTask: number, kind: AckKind, w: Uint32Array): void {
    const n = ackArity(kind);
    for (let i = 0; i < w.length; i += n) {
      this.sentAcks.push({ dest, srcTask, kind, root: idOfHalves(w[i]!, w[i + 1]!), ...(n === 4 && { val: idOfHalves(w[i + 2]!, w[i + 3]!) }) });
    }
    this.executors.get(dest)?.enqueueAcks({ kind, src: srcTask, words: w });
  }

  ackerFor(rootLo: number): number | null {
    const ackers = this.tasksOf(ACKER_COMPONENT);
    return ackers.length === 0 ? null : ackers[idBucket(rootLo, ackers.length)]!;
  }

  isCongested(): boolean {
    return false;
  }

  /** No acker is in this process here: every ack-protocol message is sent (InProcessHost below has them). */
  localAcker(_task: number): LocalAcker | undefined {
    return undefined;
  }

  runsHere(_task: number): boolean {
    return false;
  }

  wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  contextFor(component: string, task: number): TopologyContext {
    return fakeContext({ component, taskId: task, tasks: [...this.tasksOf(component)] });
  }

  add(ex: Executor): void {
    this.executors.set(ex.task, ex);
  }

  drain(): void {
    for (let round = 0; round < 10_000; round++) {
      let progressed = false;
      for (const ex of this.executors.values()) {
        if (ex.ready()) {
          ex.runSlice(performance.now() + 5);
          progressed = true;
        }
      }
      if (!progressed) return;
    }
    throw new Error('executors never became idle');
  }

  async stopAll(): Promise<void> {
    for (const ex of this.executors.values()) await ex.stop();
  }
}

function component(id: string, kind: 'spout' | 'bolt', streams: string[][], inputs: string[] = []): ComponentDef {
  return {
    id,
    kind,
    parallelism: 1,
    streams: streams.map((fields, i) => ({ id: i === 0 ? 'default' : `s${i}`, fields, direct: false })),
    inputs: inputs.map((c) => ({ component: c, stream: 'default', grouping: { type: 'shuffle' } })),
    gpu: null,
    config: {},
  };
}

describe('worker/acking/acker-executor', () => {
  const SPOUT_TASK = 1;
  let host: FakeHost;
  let acker: AckerExecutor;
  let ackerTask: number;

  beforeEach(() => {
    host = new FakeHost({ components: [component('spout', 'spout', [['x']])], config: {} });
    ackerTask = host.tasksOf(ACKER_COMPONENT)[0]!;
    acker = new AckerExecutor(host, ackerTask, host.settings);
    host.add(acker);
  });

  afterEach(() => host.stopAll());

  /** A run of messages of one kind from `srcTask` (a bolt's unless said), ids as bigints: [root, val, …] or [root, …]. */
  function deliver(kind: AckKind, ids: bigint[], srcTask = 2): void {
    acker.enqueueAcks({ kind, src: srcTask, words: words(...ids) });
    host.drain();
  }
  const replies = (): SentAck[] => host.sentAcks.filter((s) => s.srcTask === ackerTask);

  it('acks the root when init and acks XOR back to zero, and not before', () => {
    const root = 0xfedcba9876543210n;
    const [e1, e2, e3] = [0x1111n, 0x2222n, 0xffff_ffff_ffff_fff0n];
    deliver(INIT, [root, e1 ^ e2], SPOUT_TASK);
    assert.deepEqual(replies(), []);
    deliver(ACK, [root, e1 ^ e3]); // e1 done, child e3 created
    assert.deepEqual(replies(), []);
    deliver(ACK, [root, e2]);
    assert.deepEqual(replies(), []);
    assert.equal(acker.pendingTrees, 1);
    deliver(ACK, [root, e3]);
    assert.deepEqual(replies(), [{ dest: SPOUT_TASK, srcTask: ackerTask, kind: ACKED, root }]);
    assert.equal(acker.pendingTrees, 0);
    assert.equal(acker.metrics.acked, 1);
  });

  it('completes a tree whose acks overtook the init', () => {
    const root = 42n;
    const [a, b] = [0xabcn, 0xdefn];
    deliver(ACK, [root, a ^ b]);
    deliver(ACK, [root, b]);
    assert.deepEqual(replies(), [], 'no spout task known yet');
    deliver(INIT, [root, a], SPOUT_TASK);
    assert.deepEqual(
      replies().map((r) => [r.dest, r.kind, r.root]),
      [[SPOUT_TASK, ACKED, root]],
    );
  });

  it('also completes a tree whose acks XOR to zero before the init arrived', () => {
    const root = 7n;
    deliver(ACK, [root, 5n]);
    deliver(ACK, [root, 5n]); // XOR is zero, but the spout has not spoken: not complete
    assert.deepEqual(replies(), []);
    deliver(INIT, [root, 9n], SPOUT_TASK);
    assert.deepEqual(replies(), []);
    deliver(ACK, [root, 9n]);
    assert.deepEqual(
      replies().map((r) => r.kind),
      [ACKED],
    );
  });

  it('reports a fail to the spout task, once', () => {
    const root = 99n;
    deliver(INIT, [root, 3n], SPOUT_TASK);
    deliver(FAIL, [root]);
    deliver(ACK, [root, 3n]); // a sibling acked after the fail: no second reply
    assert.deepEqual(
      replies().map((r) => [r.dest, r.kind, r.root]),
      [[SPOUT_TASK, FAILED, root]],
    );
    assert.equal(acker.metrics.failed, 1);
  });

  it('reports a fail that arrived before the init once the init arrives', () => {
    const root = 100n;
    deliver(FAIL, [root]);
    assert.deepEqual(replies(), []);
    deliver(INIT, [root, 3n], SPOUT_TASK);
    assert.deepEqual(
      replies().map((r) => r.kind),
      [FAILED],
    );
  });

  it('refuses and counts runs of a kind an acker does not take (a reply, a forged kind): nothing reaches the XOR', () => {
    const root = 0x77n;
    deliver(INIT, [root, 3n], SPOUT_TASK);
    for (const kind of [ACKED, FAILED, 9, 0] as AckKind[]) {
      assert.equal(acker.enqueueAcks({ kind, src: 2, words: words(root, 3n) }), false, `kind ${kind}`);
    }
    host.drain();
    assert.equal(acker.rejectedAcks, 4);
    assert.deepEqual(replies(), [], 'nothing reached the XOR');
    deliver(ACK, [root, 3n]);
    assert.deepEqual(
      replies().map((r) => [r.kind, r.root]),
      [[ACKED, root]],
      'the tree still completes',
    );
  });

  it('takes a run of several messages (as the transport merges them between workers), the run\'s source the spout task of its inits', () => {
    deliver(INIT, [1n, 10n, 2n, 20n], SPOUT_TASK);
    deliver(ACK, [2n, 20n, 1n, 10n]);
    assert.deepEqual(
      replies().map((r) => [r.dest, r.root]),
      [
        [SPOUT_TASK, 2n],
        [SPOUT_TASK, 1n],
      ],
    );
    assert.equal(acker.metrics.executed, 4, 'one execute per message');
  });

  it('keeps trees of different roots apart, and roots that share a half', () => {
    deliver(INIT, [1n, 10n], SPOUT_TASK);
    deliver(INIT, [2n, 20n], SPOUT_TASK);
    deliver(INIT, [(1n << 32n) | 1n, 30n], SPOUT_TASK); // the low half of root 1, another high half
    deliver(ACK, [1n, 20n]); // the other tree's edge: tree 1 is not done
    deliver(ACK, [2n, 20n]);
    deliver(ACK, [(1n << 32n) | 1n, 30n]);
    assert.deepEqual(
      replies().map((r) => r.root),
      [2n, (1n << 32n) | 1n],
    );
    assert.equal(acker.pendingTrees, 1);
  });

  it("forwards a bolt's RESET to the tree's spout task and keeps the tree; a root it does not track gets no entry and no reply", () => {
    const root = 0x5150n;
    deliver(INIT, [root, 3n], SPOUT_TASK);
    deliver(RESET, [root]);
    assert.deepEqual(replies(), [{ dest: SPOUT_TASK, srcTask: ackerTask, kind: RESET, root }]);
    assert.equal(acker.pendingTrees, 1, 'the tree is still tracked');
    deliver(RESET, [0xdeadn]);
    assert.equal(replies().length, 1, 'no reply for a tree it does not know');
    assert.equal(acker.pendingTrees, 1, 'and no entry made for it');
    // A reset before the init: the spout is not known yet (it emitted the tree moments ago), so nothing is forwarded.
    deliver(ACK, [0x77n, 5n]);
    deliver(RESET, [0x77n]);
    assert.equal(replies().length, 1);
    deliver(ACK, [root, 3n]);
    assert.deepEqual(replies().at(-1), { dest: SPOUT_TASK, srcTask: ackerTask, kind: ACKED, root }, 'the reset tree completes as any');
  });

  it('a reset tree survives the rotation that would have dropped it (AckTable.reset touches it)', () => {
    const table = (reset: boolean) => {
      const t = new AckTable(() => undefined);
      t.init(1, 2, 3, 0, SPOUT_TASK);
      t.rotate();
      if (reset) assert.equal(t.reset(1, 2), SPOUT_TASK);
      t.rotate();
      return t.size;
    };
    assert.equal(table(false), 0, 'untouched for two rotations: forgotten');
    assert.equal(table(true), 1, 'reset between them: kept');
    assert.equal(new AckTable(() => undefined).reset(1, 2), -1);
  });

  it('forgets trees after one to two message timeouts', async () => {
    host = new FakeHost({ components: [component('spout', 'spout', [['x']])], config: {} }, { 'topology.message.timeout.secs': 0.05 });
    acker = new AckerExecutor(host, ackerTask, host.settings);
    host.add(acker);
    await acker.start();
    deliver(INIT, [5n, 1n], SPOUT_TASK);
    assert.equal(acker.pendingTrees, 1);
    await waitFor('the tree to be dropped', () => acker.pendingTrees === 0, 30_000, 10);
    assert.deepEqual(replies(), [], 'the acker never fails a tree on its own; the spout times it out');
  });
});

// ── end to end: spout → splitter (3 anchored children) → sink → acker → spout ──

/** The topology both end-to-end suites run: a spout, a bolt that splits each tuple in anchored parts, a sink. */
const SPLIT_TOPOLOGY: TopologyDef = {
  components: [
    component('spout', 'spout', [['id']]),
    component('split', 'bolt', [['id', 'part']], ['spout']),
    component('sink', 'bolt', [], ['split']),
  ],
  config: {},
};

class ListSpout extends Spout {
  readonly acked: unknown[] = [];
  readonly failed: unknown[] = [];
  private collector!: SpoutOutputCollector;
  private next = 0;
  constructor(private readonly ids: readonly number[]) {
    super();
  }
  override open(_conf: Conf, _ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
  }
  nextTuple(): void {
    const id = this.ids[this.next];
    if (id === undefined) return;
    this.next++;
    this.collector.emit([id], { messageId: `m${id}` });
  }
  override ack(id: unknown): void {
    this.acked.push(id);
  }
  readonly reasons: (FailReason | undefined)[] = [];
  override fail(id: unknown, reason?: FailReason): void {
    this.failed.push(id);
    this.reasons.push(reason);
  }
  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id']);
  }
}

type Verdict = 'ack' | 'fail' | 'throw' | 'hold';

/** Emits three children anchored to its input, then acks it (or fails / throws when told to). */
class SplitBolt extends Bolt {
  private collector!: OutputCollector;
  constructor(private readonly verdict: (id: number) => Verdict) {
    super();
  }
  override prepare(_conf: Conf, _ctx: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }
  execute(t: Tuple): void {
    const id = t.getValueByField('id') as number;
    const v = this.verdict(id);
    if (v === 'throw') throw new Error(`split refuses ${id}`);
    if (v === 'fail') return this.collector.fail(t);
    for (let part = 0; part < 3; part++) this.collector.emit([id, part], { anchors: t });
    this.collector.ack(t);
  }
}

/** Acks each child, except where told to fail it or hold on to it (so the tree times out). */
class SinkBolt extends Bolt {
  readonly held: Tuple[] = [];
  private collector!: OutputCollector;
  constructor(private readonly verdict: (id: number, part: number) => Verdict) {
    super();
  }
  override prepare(_conf: Conf, _ctx: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }
  execute(t: Tuple): void {
    const v = this.verdict(t.getValueByField('id') as number, t.getValueByField('part') as number);
    if (v === 'fail') this.collector.fail(t);
    else if (v === 'hold') this.held.push(t);
    else if (v === 'throw') throw new Error('sink refuses');
    else this.collector.ack(t);
  }
  release(): void {
    for (const t of this.held.splice(0)) this.collector.ack(t);
  }
  resetHeld(): void {
    for (const t of this.held) this.collector.resetTimeout(t);
  }
  resetOther(t: Tuple): void {
    this.collector.resetTimeout(t);
  }
}

describe('worker/executor ack tree, end to end', () => {
  const def = SPLIT_TOPOLOGY;
  let host: FakeHost;
  let spout: ListSpout;
  let sink: SinkBolt;
  let spoutEx: SpoutExecutor;

  async function start(
    ids: number[],
    split: (id: number) => Verdict,
    sinkVerdict: (id: number, part: number) => Verdict,
    config: Record<string, unknown> = {},
  ): Promise<void> {
    host = new FakeHost(def, config);
    spout = new ListSpout(ids);
    sink = new SinkBolt(sinkVerdict);
    spoutEx = new SpoutExecutor(host, 'spout', host.tasksOf('spout')[0]!, host.settings, spout);
    const executors = [
      spoutEx,
      new BoltExecutor(host, 'split', host.tasksOf('split')[0]!, host.settings, new SplitBolt(split)),
      new BoltExecutor(host, 'sink', host.tasksOf('sink')[0]!, host.settings, sink),
      new AckerExecutor(host, host.tasksOf(ACKER_COMPONENT)[0]!, host.settings),
    ];
    for (const ex of executors) {
      host.add(ex);
      await ex.start();
    }
    spoutEx.activate();
    host.drain();
  }

  afterEach(() => host.stopAll());

  const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
  const sorted = (xs: unknown[]): string[] => xs.map(String).sort();

  it('fails at once, with the reason, a message whose subscriber has no running task; none is sent, and none times out', async () => {
    host = new FakeHost(def);
    const splitTask = host.tasksOf('split')[0]!;
    host.unplaced.add(splitTask);
    spout = new ListSpout(range(5));
    spoutEx = new SpoutExecutor(host, 'spout', host.tasksOf('spout')[0]!, host.settings, spout);
    for (const ex of [spoutEx, new AckerExecutor(host, host.tasksOf(ACKER_COMPONENT)[0]!, host.settings)]) {
      host.add(ex);
      await ex.start();
    }
    spoutEx.activate();
    host.drain();
    await waitFor('every message failed', () => spout.failed.length === 5, 10_000);
    assert.deepEqual(spout.reasons, Array.from({ length: 5 }, () => ({ kind: 'unplaced', component: 'split', stream: 'default', reason: 'no GPU with a free slot (test)' })));
    assert.deepEqual(host.sent, [], 'nothing sent towards the unplaced task, no init to the acker');
    assert.equal(spoutEx.pendingCount, 0);
    assert.equal(spoutEx.metrics.failed, 5);
    const extra = spoutEx.extraMetrics()!;
    assert.deepEqual(extra.unplacedTargets, [{ component: 'split', stream: 'default', tuples: 5, reason: 'no GPU with a free slot (test)' }]);
    const errors = extra.errors as { error: string }[];
    assert.equal(errors.length, 1, 'reported once, not per tuple');
    assert.match(errors[0]!.error, /1 tuple\(s\) of "spout" on stream "default" to "split": not placed \(no GPU with a free slot \(test\)\); failed at once/);
  });

  it('fails the trees of a bolt\'s input when its anchored emit has no running subscriber', async () => {
    host = new FakeHost(def);
    host.unplaced.add(host.tasksOf('sink')[0]!);
    spout = new ListSpout(range(3));
    spoutEx = new SpoutExecutor(host, 'spout', host.tasksOf('spout')[0]!, host.settings, spout);
    const split = new BoltExecutor(host, 'split', host.tasksOf('split')[0]!, host.settings, new SplitBolt(() => 'ack'));
    for (const ex of [spoutEx, split, new AckerExecutor(host, host.tasksOf(ACKER_COMPONENT)[0]!, host.settings)]) {
      host.add(ex);
      await ex.start();
    }
    spoutEx.activate();
    host.drain();
    await waitFor('every message failed', () => spout.failed.length === 3, 10_000);
    assert.deepEqual(spout.reasons, [{ kind: 'failed' }, { kind: 'failed' }, { kind: 'failed' }], 'the acker reported the failed trees');
    assert.equal(host.sent.filter((x) => x.srcComponent === 'split' && !x.stream.startsWith('__')).length, 0, 'no child sent towards the sink');
    // Three children per input, each counted.
    assert.deepEqual(split.extraMetrics()!.unplacedTargets, [{ component: 'sink', stream: 'default', tuples: 9, reason: 'no GPU with a free slot (test)' }]);
  });

  it('fails the tuples in flight on a stream whose subscriber lost its last running task, when the assignment says so', async () => {
    await start(range(4), () => 'ack', () => 'hold');
    assert.equal(spoutEx.pendingCount, 4, 'held by the sink');
    host.unplaced.add(host.tasksOf('split')[0]!);
    spoutEx.placementChanged();
    assert.equal(spoutEx.pendingCount, 0);
    assert.deepEqual(sorted(spout.failed), sorted(range(4).map((i) => `m${i}`)));
    assert.deepEqual(spout.reasons[0], { kind: 'unplaced', component: 'split', stream: 'default', reason: 'no GPU with a free slot (test)' });
  });

  it('calls the spout ack exactly once per message id when every child is acked', async () => {
    await start(range(50), () => 'ack', () => 'ack');
    assert.deepEqual(sorted(spout.acked), sorted(range(50).map((i) => `m${i}`)));
    assert.deepEqual(spout.failed, []);
    assert.equal(spoutEx.pendingCount, 0);
    // Each spout tuple: one init; each split tuple: one ack; each child: one ack.
    assert.equal(host.sentAcks.filter((s) => s.kind === INIT).length, 50);
    assert.equal(host.sentAcks.filter((s) => s.kind === ACK).length, 50 * 4);
    assert.equal(host.sentAcks.filter((s) => s.kind === ACKED).length, 50);
    // Children carry the spout tuple's root in their anchors.
    const children = host.sent.filter((s) => s.srcComponent === 'split' && s.stream === 'default');
    assert.equal(children.length, 150);
    for (const c of children) assert.equal(c.anchors?.length, 4, 'one (root, edge) pair, as four halves');
  });

  it('calls fail (once, never ack) when a bolt fails or throws, and ack for the rest', async () => {
    const splitVerdict = (id: number): Verdict => (id === 3 ? 'fail' : id === 4 ? 'throw' : 'ack');
    const sinkVerdict = (id: number, part: number): Verdict => (id === 7 && part === 1 ? 'fail' : id === 8 && part === 2 ? 'throw' : 'ack');
    await start(range(10), splitVerdict, sinkVerdict);
    assert.deepEqual(sorted(spout.failed), ['m3', 'm4', 'm7', 'm8']);
    assert.deepEqual(sorted(spout.acked), ['m0', 'm1', 'm2', 'm5', 'm6', 'm9']);
    assert.equal(spoutEx.pendingCount, 0);
  });

  it('times a tree out after topology.message.timeout.secs and fails it, and ignores a later ack', async () => {
    const started = performance.now();
    await start(range(4), () => 'ack', (id, part) => (id === 2 && part === 0 ? 'hold' : 'ack'), { 'topology.message.timeout.secs': 0.3 });
    assert.deepEqual(sorted(spout.acked), ['m0', 'm1', 'm3']);
    assert.deepEqual(spout.failed, []);
    assert.equal(sink.held.length, 1);
    await waitFor('the timeout', () => spout.failed.length > 0, 30_000, 10);
    const waited = performance.now() - started;
    // A lower bound that load cannot break: `started` precedes the emit and both read the same clock, so a busy
    // machine only makes `waited` longer; it fails only if the spout times a tree out early.
    assert.ok(waited >= 290, `failed after ${waited.toFixed(0)} ms, before the 300 ms timeout`);
    assert.deepEqual(spout.failed, ['m2']);
    // The held child is finally acked: the acker completes the tree, but the spout already failed it.
    sink.release();
    host.drain();
    assert.deepEqual(spout.failed, ['m2']);
    assert.deepEqual(sorted(spout.acked), ['m0', 'm1', 'm3']);
  });

  it("resetTimeout sends a RESET per root to the acker, which passes it to the spout: the tree's timeout starts again there, its emit time kept", async () => {
    await start(range(3), () => 'ack', (id, part) => (id === 1 && part === 0 ? 'hold' : 'ack'));
    assert.deepEqual(sorted(spout.acked), ['m0', 'm2']);
    const held = sink.held[0]!;
    // The spout's in-flight table, read for the test (its scan, picking nothing): when m1's timeout started.
    const pending = (spoutEx as unknown as { pending: PendingMessages }).pending as unknown as { pick(which: (emittedAt: number, stream: string, timeoutFrom: number) => boolean, removed: () => void): void };
    const timeoutStart = () => {
      let at = NaN;
      pending.pick((_e, _s, t) => ((at = t), false), () => undefined);
      return at;
    };
    const before = timeoutStart();
    const sent = host.sentAcks.length;
    sink.resetHeld();
    host.drain();
    const resets = host.sentAcks.slice(sent);
    const root = idOfHalves((held as RuntimeTuple).anchors![0]!, (held as RuntimeTuple).anchors![1]!);
    assert.deepEqual(
      resets.map((r) => [r.kind, r.root, r.dest]),
      [
        [RESET, root, host.tasksOf(ACKER_COMPONENT)[0]!],
        [RESET, root, spoutEx.task],
      ],
      'bolt → acker, then acker → spout',
    );
    assert.ok(timeoutStart() > before, 'the spout restarted the timeout');
    sink.release();
    host.drain();
    assert.deepEqual(sorted(spout.acked), ['m0', 'm1', 'm2']);
    // A tick or an untracked tuple: nothing to reset, nothing sent.
    const quiet = host.sentAcks.length;
    sink.resetOther(new RuntimeTuple([1, 0], new Fields(['id', 'part']), 'split', 'default', 2, null));
    assert.equal(host.sentAcks.length, quiet);
  });

  it('acks at once when acking is off (no acker tasks)', async () => {
    host = new FakeHost(def, {}, 0);
    spout = new ListSpout(range(5));
    spoutEx = new SpoutExecutor(host, 'spout', host.tasksOf('spout')[0]!, host.settings, spout);
    host.add(spoutEx);
    host.add(new BoltExecutor(host, 'split', host.tasksOf('split')[0]!, host.settings, new SplitBolt(() => 'ack')));
    host.add(new BoltExecutor(host, 'sink', host.tasksOf('sink')[0]!, host.settings, new SinkBolt(() => 'hold')));
    for (const ex of host.executors.values()) await ex.start();
    spoutEx.activate();
    host.drain();
    // ackAtOnce defers the user call (a microtask): wait for the calls, then check which ones came.
    await waitFor('the spout acks', () => spout.acked.length >= 5, 30_000, 10);
    assert.deepEqual(sorted(spout.acked), ['m0', 'm1', 'm2', 'm3', 'm4']);
    assert.deepEqual(host.sentAcks, []);
  });
});

describe('worker/executor bolt lifecycle', () => {
  /** Records what reaches execute; prepare finishes only when the test says so. */
  class SlowPrepareBolt extends Bolt {
    readonly executed: number[] = [];
    prepared = false;
    private release!: () => void;
    private collector!: OutputCollector;
    private onPrepare: () => void = () => undefined;
    readonly prepareCalled = new Promise<void>((r) => (this.onPrepare = r));
    override prepare(_conf: Conf, _ctx: TopologyContext, collector: OutputCollector): Promise<void> {
      this.collector = collector;
      this.onPrepare();
      return new Promise<void>((r) => (this.release = r)).then(() => {
        this.prepared = true;
      });
    }
    finishPrepare(): void {
      this.release();
    }
    execute(t: Tuple): void {
      if (!this.prepared) throw new Error('execute before prepare finished');
      this.executed.push(t.getValueByField('id') as number);
      this.collector.ack(t);
    }
  }

  it('never calls execute before prepare has finished, and runs what queued meanwhile once it has (as Storm)', async () => {
    const def: TopologyDef = { components: [component('spout', 'spout', [['id']]), component('sink', 'bolt', [], ['spout'])], config: {} };
    const host = new FakeHost(def, {}, 0);
    const bolt = new SlowPrepareBolt();
    const ex = new BoltExecutor(host, 'sink', host.tasksOf('sink')[0]!, host.settings, bolt);
    host.add(ex);
    const started = ex.start();
    await bolt.prepareCalled;
    // A peer worker sends as soon as this worker's port is bound, while prepare is still running.
    for (const id of [1, 2, 3]) host.send(ex.task, 'spout', host.tasksOf('spout')[0]!, 'default', [id], null);
    host.drain();
    assert.deepEqual(bolt.executed, [], 'nothing executed during prepare');
    bolt.finishPrepare();
    await started;
    await waitFor('the queued tuples', () => bolt.executed.length === 3, 30_000, 10);
    assert.deepEqual(bolt.executed, [1, 2, 3]);
    await host.stopAll();
  });
});

// ── ackers in the same process: inits, acks and fails as calls, replies gathered ──

/** FakeHost as a Worker sees it: the executors of this process are found (`remote` tasks are elsewhere), ackerFor is the Worker's. */
class InProcessHost extends FakeHost {
  readonly remote = new Set<number>();

  executorOf(task: number): Executor | undefined {
    return this.remote.has(task) ? undefined : this.executors.get(task);
  }

  override localAcker(task: number): LocalAcker | undefined {
    const ex = this.executorOf(task);
    return ex instanceof AckerExecutor ? ex : undefined;
  }

  override runsHere(task: number): boolean {
    return this.executorOf(task) !== undefined;
  }

  override ackerFor(rootLo: number): number | null {
    const ackers = this.tasksOf(ACKER_COMPONENT);
    return ackers.length === 0 ? null : ackers[idBucket(rootLo, ackers.length)]!;
  }
}

describe('worker/executor ack tree with the acker in the same process', () => {
  const def = SPLIT_TOPOLOGY;
  let host: InProcessHost;
  let spout: ListSpout;
  let spoutEx: SpoutExecutor;

  /** Two acker tasks; `remoteAcker`: the second one runs in another process (only its executor is unreachable). */
  async function start(ids: number[], split: (id: number) => Verdict, sinkVerdict: (id: number, part: number) => Verdict, remoteAcker: boolean): Promise<number[]> {
    host = new InProcessHost(def, {}, 2);
    const ackers = [...host.tasksOf(ACKER_COMPONENT)];
    if (remoteAcker) host.remote.add(ackers[1]!);
    spout = new ListSpout(ids);
    spoutEx = new SpoutExecutor(host, 'spout', host.tasksOf('spout')[0]!, host.settings, spout);
    const executors = [
      spoutEx,
      new BoltExecutor(host, 'split', host.tasksOf('split')[0]!, host.settings, new SplitBolt(split)),
      new BoltExecutor(host, 'sink', host.tasksOf('sink')[0]!, host.settings, new SinkBolt(sinkVerdict)),
      ...ackers.map((t) => new AckerExecutor(host, t, host.settings)),
    ];
    for (const ex of executors) host.add(ex);
    for (const ex of executors) await ex.start();
    spoutEx.activate();
    host.drain();
    return ackers;
  }

  afterEach(() => host.stopAll());

  const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
  const sorted = (xs: unknown[]): string[] => xs.map(String).sort();

  it('acks every message id once, with no init or ack travelling as a tuple, and the replies gathered', async () => {
    await start(range(60), () => 'ack', () => 'ack', false);
    assert.deepEqual(sorted(spout.acked), sorted(range(60).map((i) => `m${i}`)));
    assert.deepEqual(spout.failed, []);
    assert.equal(spoutEx.pendingCount, 0);
    const toAckers = host.sentAcks.filter((s) => s.kind === INIT || s.kind === ACK);
    assert.deepEqual(toAckers, [], 'inits and acks were calls');
    const replies = host.sentAcks.filter((s) => host.tasksOf(ACKER_COMPONENT).includes(s.srcTask));
    assert.equal(replies.length, 60, 'one reply per tree');
    assert.ok(replies.every((r) => r.kind === ACKED && r.dest === spoutEx.task));
  });

  it("counts the in-process calls in the acker's executed count and busy time (its capacity)", async () => {
    const ackers = await start(range(60), () => 'ack', () => 'ack', false);
    const metrics = ackers.map((t) => (host.executorOf(t) as AckerExecutor).metrics);
    // 60 inits, one ack per split tuple, one per child (3 each), over both ackers: no tuple reached them, every message was a call.
    assert.equal(metrics.reduce((n, m) => n + m.executed, 0), 60 + 60 + 180);
    for (const m of metrics.filter((m) => m.executed >= 16)) {
      assert.ok(m.totalBusyMs() > 0, `acker ${m.task}: its calls are timed (sampled), not left out of capacity`);
      assert.ok(m.executeLatency.count > 0);
    }
    assert.ok(metrics.some((m) => m.executed >= 16));
  });

  it('fails exactly the trees a bolt failed or threw in, through a local acker', async () => {
    const splitVerdict = (id: number): Verdict => (id === 3 ? 'fail' : id === 4 ? 'throw' : 'ack');
    const sinkVerdict = (id: number, part: number): Verdict => (id === 7 && part === 1 ? 'fail' : id === 8 && part === 2 ? 'throw' : 'ack');
    await start(range(10), splitVerdict, sinkVerdict, false);
    assert.deepEqual(sorted(spout.failed), ['m3', 'm4', 'm7', 'm8']);
    assert.deepEqual(sorted(spout.acked), ['m0', 'm1', 'm2', 'm5', 'm6', 'm9']);
    assert.equal(spoutEx.pendingCount, 0);
  });

  it('draws roots whose acker (by the root alone, as every task picks it) is the one in its process', async () => {
    const ackers = await start(range(40), () => 'ack', () => 'ack', true);
    assert.deepEqual(sorted(spout.acked), sorted(range(40).map((i) => `m${i}`)));
    const roots = host.sent.filter((s) => s.srcComponent === 'spout' && s.stream === 'default').map((s) => s.anchors![0]!);
    assert.equal(roots.length, 40);
    for (const r of roots) assert.equal(host.ackerFor(r), ackers[0], `root ${r} lands on the local acker`);
    assert.deepEqual(
      [...host.sent, ...host.sentAcks].filter((s) => s.dest === ackers[1]),
      [],
      'nothing for the acker of the other process',
    );
  });
});

describe('worker/acking/ack-ids', () => {
  it('Xoshiro128 gives the reference implementation\'s outputs, and refuses the all-zero seed', () => {
    // From Blackman and Vigna's xoshiro128starstar.c, compiled as published, seeded {1, 2, 3, 4}; then seeded
    // {0x9e3779b9, 0xffffffff, 0, 0x80000000}, its 1001st output (words that need all 32 bits and the sign bit).
    const g = new Xoshiro128([1, 2, 3, 4]);
    assert.deepEqual(
      Array.from({ length: 8 }, () => g.next()),
      [11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849],
    );
    const h = new Xoshiro128([0x9e3779b9, 0xffffffff, 0, 0x80000000]);
    for (let i = 0; i < 1000; i++) h.next();
    assert.equal(h.next(), 2695558741);
    assert.throws(() => new Xoshiro128([0, 0, 0, 0]), /not all zero/);
    assert.throws(() => new Xoshiro128([1, 2, 3]), /four words/);
  });

  it('randomHalf: uint32s whose every bit is set about half the time; 64-bit ids do not repeat', () => {
    const N = 200_000;
    const ones = new Array<number>(32).fill(0);
    const seen = new Set<bigint>();
    for (let i = 0; i < N; i++) {
      const lo = randomHalf();
      const hi = randomHalf();
      assert.ok(Number.isInteger(lo) && lo >= 0 && lo <= 0xffffffff);
      for (let b = 0; b < 32; b++) if ((lo >>> b) & 1) ones[b]!++;
      seen.add(idOfHalves(lo, hi));
    }
    // Each bit: N fair coins, standard deviation sqrt(N)/2 ≈ 224; 1 % of N is 9 of them.
    for (let b = 0; b < 32; b++) assert.ok(Math.abs(ones[b]! / N - 0.5) < 0.01, `bit ${b} set ${ones[b]} times in ${N}`);
    assert.equal(seen.size, N, 'a repeat among 200 000 random 64-bit ids has odds of about 1 in 10^9');
  });

  it('randomLowInBucket: a low half in the asked bucket, random in its other bits', () => {
    for (const n of [1, 2, 3, 7, 8, 1000]) {
      const seen = new Set<number>();
      for (let i = 0; i < 2000; i++) {
        const bucket = i % n;
        const lo = randomLowInBucket(bucket, n);
        assert.ok(Number.isInteger(lo) && lo >= 0 && lo <= 0xffffffff, `${lo} is a uint32`);
        assert.equal(idBucket(lo, n), bucket);
        assert.equal((lo & 0x3fffffff) % n, bucket, 'idBucket is the low 30 bits of the low half, mod n');
        seen.add(lo);
      }
      // 2000 draws from 2^32 / n values per bucket: a repeat is rare (p < 0.001), a handful means no randomness.
      assert.ok(seen.size >= 1995, `low halves repeat for n = ${n}: ${seen.size} distinct of 2000`);
    }
  });

  it('writeRandomId: a non-zero id as two uint32 halves; halves and bigints convert both ways', () => {
    const out = [0, 0, 0];
    for (let i = 0; i < 1000; i++) {
      writeRandomId(out, 1);
      assert.equal(out[0], 0, 'nothing written outside its two places');
      assert.ok(out.slice(1).every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffffffff));
      const id = idOfHalves(out[1]!, out[2]!);
      assert.notEqual(id, 0n);
      const back = [0, 0];
      writeHalvesOf(id, back, 0);
      assert.deepEqual(back, out.slice(1));
    }
    assert.equal(idOfHalves(0xffffffff, 0xffffffff), (1n << 64n) - 1n);
    assert.equal(idOfHalves(1, 2), (2n << 32n) | 1n);
  });
});
