/**
 * An ExecutorHost without a worker, for unit tests of executors: every task of
 * the definition counts as local and placed, sends are recorded (and handed to
 * a receiving executor when the test registers one), and acking is off unless
 * the test gives acker tasks.
 */
import { computeTasks, type TopologyDef } from '../../common/topology-def.js';
import { silentLogger } from '../../common/logger.js';
import type { ComponentPlacement, TopologyContext } from '../../topology-sdk/context.js';
import type { ExecutorHost, LocalAcker } from '../../worker/executor/executor-host.js';
import type { AnchorIds } from '../../worker/executor/runtime-tuple.js';
import { ackArity, type AckKind } from '../../worker/acking/ack-messages.js';
import { fakeContext } from './fake-context.js';
import type { StaleTuples } from '../../worker/fencing/stale-tuples.js';
import type { IntervalClock } from '../../common/interval-clock.js';
import { NO_TREE_START } from '../../worker/transport/frame-tree-time.js';

export interface Sent {
  dest: number;
  srcComponent: string;
  srcTask: number;
  stream: string;
  values: unknown[];
  anchors: AnchorIds;
  /** When the tuple's tree started (RuntimeTuple.treeStart); NO_TREE_START when not given. */
  treeStart: number;
}

/** An ack-protocol message sent (ExecutorHost.sendAck / sendAcks, one entry per message). */
export interface SentAck {
  dest: number;
  srcTask: number;
  kind: AckKind;
  words: number[];
}

export class FakeHost implements ExecutorHost {
  readonly topologyId = 'fake-1';
  readonly log = silentLogger();
  readonly sent: Sent[] = [];
  readonly sentAcks: SentAck[] = [];
  wakes = 0;
  /** The stale-tuple rule, when a test sets one (fencing/stale-tuples.ts). */
  staleTuples?: StaleTuples;
  /** The clock executors read (tick tuples, emit times), when a test sets one. */
  clock?: IntervalClock;
  private readonly tasks: ReturnType<typeof computeTasks>;

  constructor(
    readonly def: TopologyDef,
    private readonly config: Record<string, unknown> = {},
  ) {
    this.tasks = computeTasks(def, 0);
  }

  tasksOf(component: string): readonly number[] {
    return this.tasks.filter((t) => t.component === component).map((t) => t.task);
  }

  isLocal(): boolean {
    return true;
  }

  isPlaced(): boolean {
    return true;
  }

  configOf(): Readonly<Record<string, unknown>> {
    return this.config;
  }

  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: AnchorIds, _wire?: unknown[] | null, treeStart = NO_TREE_START): void {
    this.sent.push({ dest, srcComponent, srcTask, stream, values, anchors, treeStart });
  }

  sendAck(dest: number, srcTask: number, kind: AckKind, rootLo: number, rootHi: number, valLo: number, valHi: number): void {
    this.sentAcks.push({ dest, srcTask, kind, words: ackArity(kind) === 4 ? [rootLo, rootHi, valLo, valHi] : [rootLo, rootHi] });
  }

  sendAcks(dest: number, srcTask: number, kind: AckKind, words: Uint32Array): void {
    const n = ackArity(kind);
    for (let i = 0; i < words.length; i += n) this.sentAcks.push({ dest, srcTask, kind, words: Array.from(words.subarray(i, i + n)) });
  }

  ackerFor(): number | null {
    return null;
  }

  isCongested(): boolean {
    return false;
  }

  wake(): void {
    this.wakes++;
  }

  localAcker(): LocalAcker | undefined {
    return undefined;
  }

  runsHere(): boolean {
    return true;
  }

  placementOf(component: string): ComponentPlacement {
    return { running: [...this.tasksOf(component)], unplaced: [], reason: null };
  }

  contextFor(component: string, task: number): TopologyContext {
    return fakeContext({ component, taskId: task, tasks: [...this.tasksOf(component)], def: this.def });
  }
}
