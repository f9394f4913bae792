/**
 * Storm's CheckpointTupleForwarder: what every bolt that is not stateful is
 * wrapped in when the topology has a stateful bolt, so the checkpoint stream
 * flows through the whole graph. Once a checkpoint has come from every input
 * task (checkpoint-barrier.ts) it is sent on, anchored, and acked; data
 * tuples go to the bolt as before (a BasicBolt keeps its automatic anchoring
 * and acking). Emits must be anchored (anchoring.ts).
 *
 * As in Storm, data tuples are not held while a checkpoint waits for its other
 * inputs: a tuple that arrives on one input after the checkpoint, before the
 * checkpoint on another, may land in the state before that checkpoint (at
 * least once, never lost).
 */
import { BasicBolt, Bolt, type BasicOutputCollector, type Conf, type MaybePromise, type OutputCollector } from '../components.js';
import type { TopologyContext } from '../context.js';
import type { OutputFieldsDeclarer } from '../output-declarer.js';
import type { Tuple } from '../tuple.js';
import { CHECKPOINT_STREAM } from '../../common/topology-def.js';
import { CheckpointBarrier } from './checkpoint-barrier.js';
import { isCheckpoint, readCheckpoint } from './checkpoint-protocol.js';
import { anchoringCollector } from './anchoring.js';
import { readEmitArgs } from './emit-args.js';

export class CheckpointForwarder extends Bolt {
  private out!: OutputCollector;
  private barrier!: CheckpointBarrier;
  private component = '';

  constructor(readonly bolt: Bolt | BasicBolt) {
    super();
  }

  override async prepare(conf: Conf, context: TopologyContext, collector: OutputCollector): Promise<void> {
    this.out = collector;
    this.component = context.componentId;
    this.barrier = new CheckpointBarrier(CheckpointBarrier.inputsOf(context));
    if (this.bolt instanceof BasicBolt) await this.bolt.prepare(conf, context);
    else await this.bolt.prepare(conf, context, anchoringCollector(context.componentId, collector, (t) => collector.ack(t)));
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    this.bolt.declareOutputFields(declarer);
  }

  execute(tuple: Tuple): MaybePromise<void> {
    if (isCheckpoint(tuple)) {
      const cp = readCheckpoint(tuple);
      if (cp !== null && this.barrier.arrive(cp.action, cp.txid, tuple.sourceTask) === 'go') {
        this.barrier.acted(cp.action, cp.txid);
        this.out.emit([cp.txid, cp.action], { stream: CHECKPOINT_STREAM, anchors: tuple });
      }
      this.out.ack(tuple);
      return;
    }
    if (!(this.bolt instanceof BasicBolt)) return this.bolt.execute(tuple);
    // A BasicBolt as the worker runs one: emits anchored to the input, acked when execute returns, failed when it throws.
    const out = this.out;
    const component = this.component;
    const basic: BasicOutputCollector = {
      emit: (a: unknown, b?: unknown, c?: unknown): number[] => {
        const e = readEmitArgs('basic', component, a, b, c);
        return out.emit(e.values, { stream: e.stream, anchors: tuple });
      },
      emitDirect: (task: number, a?: unknown, b?: unknown, c?: unknown): void => {
        const e = readEmitArgs('basic', component, a, b, c, 'emitDirect');
        out.emitDirect(task, e.values, { stream: e.stream, anchors: tuple });
      },
      resetTimeout: (t) => out.resetTimeout(t),
      reportError: (err) => out.reportError(err),
    };
    const r = this.bolt.execute(tuple, basic);
    if (r instanceof Promise) return r.then(() => out.ack(tuple));
    out.ack(tuple);
  }

  override cleanup(): MaybePromise<void> {
    return this.bolt.cleanup();
  }
}
