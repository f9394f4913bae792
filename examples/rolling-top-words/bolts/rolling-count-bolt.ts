/**
 * storm-starter's RollingCountBolt: counts words over a sliding window and, on every tick tuple (it asks for them in
 * getComponentConfiguration, every `emitFrequencySecs`), emits [word, count in the window, actual window length].
 */
import { Bolt, Fields, TupleUtils, Values, type Conf, type OutputCollector, type OutputFieldsDeclarer, type TopologyContext, type Tuple } from 'hstorm';
import { SlidingWindowCounter } from '../tools/sliding-window-counter.js';
import { NthLastModifiedTimeTracker } from '../tools/nth-last-modified-time-tracker.js';

export class RollingCountBolt extends Bolt {
  private readonly counter: SlidingWindowCounter<unknown>;
  private collector!: OutputCollector;
  private lastModifiedTracker!: NthLastModifiedTimeTracker;
  private ctx!: TopologyContext;

  constructor(
    private readonly windowLengthSecs = 300,
    private readonly emitFrequencySecs = 60,
  ) {
    super();
    this.counter = new SlidingWindowCounter(this.numWindowChunks());
  }

  private numWindowChunks(): number {
    return Math.floor(this.windowLengthSecs / this.emitFrequencySecs);
  }

  override prepare(_conf: Conf, ctx: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
    this.ctx = ctx;
    this.lastModifiedTracker = new NthLastModifiedTimeTracker(this.numWindowChunks());
  }

  execute(tuple: Tuple): void {
    if (TupleUtils.isTick(tuple)) {
      this.emitCurrentWindowCounts();
    } else {
      this.counter.incrementCount(tuple.getValue(0));
      this.collector.ack(tuple);
    }
  }

  private emitCurrentWindowCounts(): void {
    const counts = this.counter.getCountsThenAdvanceWindow();
    const actualWindowLengthSecs = this.lastModifiedTracker.secondsSinceOldestModification();
    this.lastModifiedTracker.markAsModified();
    if (actualWindowLengthSecs !== this.windowLengthSecs) {
      this.ctx.log.debug({ actualWindowLengthSecs, windowLengthSecs: this.windowLengthSecs }, 'window not full yet (normal while it fills up)');
    }
    for (const [obj, count] of counts) this.collector.emit(new Values(obj, count, actualWindowLengthSecs));
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(new Fields('obj', 'count', 'actualWindowLengthInSeconds'));
  }

  override getComponentConfiguration(): Record<string, unknown> {
    return { 'topology.tick.tuple.freq.secs': this.emitFrequencySecs };
  }
}
