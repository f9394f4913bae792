/**
 * Storm's BaseWindowedBolt: a bolt whose `execute` gets a window of tuples
 * instead of one tuple. The window is configured on the instance; the
 * builder wraps the bolt in the runtime's windowing bolt (as Storm's
 * TopologyBuilder wraps an IWindowedBolt in WindowedBoltExecutor), which
 * keeps the tuples, evaluates windows and acks each input tuple when it
 * leaves the last window that holds it. docs/windowing.md has the rules.
 *
 * @example
 * class MovingAverage extends WindowedBolt {
 *   private collector!: OutputCollector;
 *   override prepare(_conf: Conf, _ctx: TopologyContext, collector: OutputCollector) { this.collector = collector; }
 *   execute(window: TupleWindow) {
 *     const xs = window.get().map((t) => t.getDoubleByField('value'));
 *     this.collector.emit([xs.reduce((a, b) => a + b, 0) / xs.length]); // anchored to every tuple of the window
 *   }
 *   override declareOutputFields(d: OutputFieldsDeclarer) { d.declare(['avg']); }
 * }
 * builder.setBolt('avg', () => new MovingAverage().withWindow(Duration.ofSeconds(30), Duration.ofSeconds(5)), 1).shuffleGrouping('readings');
 */
import type { Conf, MaybePromise, OutputCollector } from './components.js';
import type { TopologyContext } from './context.js';
import type { OutputFieldsDeclarer } from './output-declarer.js';
import type { Tuple } from './tuple.js';
import type { TupleWindow } from './tuple-window.js';
import type { WindowDef, WindowSizeDef } from '../common/topology-def.js';
import { WindowValidationError } from '../common/errors.js';
import { Count, Duration } from './window-units.js';

/** Storm's TimestampExtractor: the event time of a tuple, in ms. */
export type TimestampExtractor = (tuple: Tuple) => number;

/** Storm's defaults: a watermark every second, no lag (and no idle timeout: a silent input holds the watermark). */
const DEFAULT_WATERMARK_INTERVAL_MS = 1000;

export abstract class WindowedBolt {
  private length: WindowSizeDef | null = null;
  private slide: WindowSizeDef | null = null;
  private timestampField: string | null = null;
  private extractor: TimestampExtractor | null = null;
  private lagMs: number | null = null;
  private watermarkIntervalMs: number | null = null;
  private idleTimeoutMs: number | null = null;
  private lateStream: string | null = null;

  /**
   * A sliding window: `length` and `slide` each a `Count` of tuples or a `Duration`, in any combination.
   * Without a slide the window slides with every tuple (`Count.of(1)`), as in Storm.
   */
  withWindow(length: Count | Duration, slide: Count | Duration = Count.of(1)): this {
    this.length = sizeOf(length, 'withWindow', 'length');
    this.slide = sizeOf(slide, 'withWindow', 'slide');
    return this;
  }

  /** A tumbling window: windows of `length` one after the other, each tuple in exactly one. */
  withTumblingWindow(length: Count | Duration): this {
    this.length = sizeOf(length, 'withTumblingWindow', 'length');
    this.slide = this.length;
    return this;
  }

  /** Event time from a numeric field of every input tuple (ms). A tuple without it fails, with the reason. */
  withTimestampField(name: string): this {
    if (typeof name !== 'string' || name === '') throw new WindowValidationError('withTimestampField(name): the field name must be a non-empty string');
    this.timestampField = name;
    this.extractor = null;
    return this;
  }

  /** Event time from a function of the tuple (ms), e.g. from a nested value. */
  withTimestampExtractor(extractor: TimestampExtractor): this {
    if (typeof extractor !== 'function') throw new WindowValidationError('withTimestampExtractor(fn): fn must be a function of the tuple returning ms');
    this.extractor = extractor;
    this.timestampField = null;
    return this;
  }

  /** Event time: how far out of order timestamps may come; the watermark stays this far behind the newest (default 0). */
  withLag(lag: Duration): this {
    this.lagMs = durationOf(lag, 'withLag', 0);
    return this;
  }

  /** Event time: how often the watermark is computed and due windows evaluated (default 1 s). */
  withWatermarkInterval(interval: Duration): this {
    this.watermarkIntervalMs = durationOf(interval, 'withWatermarkInterval');
    return this;
  }

  /**
   * Event time: late tuples (stamped before the watermark) are emitted on `streamId`, one field `late_tuple` holding a
   * LateTuple; the stream is declared for you. Without it they are acked, dropped and counted.
   */
  withLateTupleStream(streamId: string): this {
    if (typeof streamId !== 'string' || streamId === '' || streamId.startsWith('__')) {
      throw new WindowValidationError(`withLateTupleStream(${JSON.stringify(streamId)}): a stream id, not empty and not starting with "__"`);
    }
    this.lateStream = streamId;
    return this;
  }

  /**
   * Event time, hstorm's own, an opt-in: an input task that sent nothing for this long stops holding the watermark
   * back, and when every input task is silent the watermark follows the clock (docs/windowing.md, "Idle inputs"), so
   * the last windows close when the input pauses or ends. The price: a task silent longer than this that resumes
   * with continuing timestamps has them late. Without it (the default, as in Storm) the watermark waits for every
   * input task's data, and no pause ever makes on-time tuples late.
   */
  withIdleTimeout(timeout: Duration): this {
    this.idleTimeoutMs = durationOf(timeout, 'withIdleTimeout');
    return this;
  }

  prepare(_conf: Conf, _context: TopologyContext, _collector: OutputCollector): MaybePromise<void> {}
  /**
   * Process one window. Everything emitted through the collector while this runs (until its promise settles) is
   * anchored to every tuple of the window; a throw, a rejected promise or `collector.fail` of any tuple fails them all.
   * `collector.ack` does nothing (the runtime acks each tuple when it leaves its last window), and neither does a
   * `fail` outside `execute`.
   */
  abstract execute(window: TupleWindow): MaybePromise<void>;
  cleanup(): MaybePromise<void> {}
  declareOutputFields(_declarer: OutputFieldsDeclarer): void {}

  /** The late-tuple stream, if one was set (the runtime declares it). */
  lateTupleStream(): string | null {
    return this.lateStream;
  }

  /** The extractor that stamps tuples: the one given, or a reader of the timestamp field; null in processing time. */
  timestampExtractor(): TimestampExtractor | null {
    const field = this.timestampField;
    if (field === null) return this.extractor;
    return (t) => t.getValueByField(field) as number;
  }

  /** The window as the topology definition records it; throws (naming `component`) for a bolt configured wrong. */
  windowDef(component: string): WindowDef {
    if (this.length === null || this.slide === null) {
      throw new WindowValidationError(`component "${component}": a WindowedBolt needs a window: call withWindow(length, slide) or withTumblingWindow(length)`, component);
    }
    const eventTime = this.timestampField !== null || this.extractor !== null;
    if (!eventTime) {
      const set = [this.lagMs !== null && 'withLag', this.watermarkIntervalMs !== null && 'withWatermarkInterval', this.lateStream !== null && 'withLateTupleStream', this.idleTimeoutMs !== null && 'withIdleTimeout'].filter(Boolean);
      if (set.length > 0) {
        throw new WindowValidationError(
          `component "${component}": ${set.join(', ')} apply to event time; also call withTimestampField(name) or withTimestampExtractor(fn), or leave ${set.length > 1 ? 'them' : 'it'} out`,
          component,
        );
      }
    }
    const watermarkIntervalMs = this.watermarkIntervalMs ?? DEFAULT_WATERMARK_INTERVAL_MS;
    return {
      length: { ...this.length },
      slide: { ...this.slide },
      timestampField: this.timestampField,
      eventTime,
      lagMs: this.lagMs ?? 0,
      watermarkIntervalMs,
      idleTimeoutMs: this.idleTimeoutMs,
      lateStream: this.lateStream,
    };
  }
}

function sizeOf(x: Count | Duration, call: string, what: string): WindowSizeDef {
  if (x instanceof Count) return { unit: 'count', value: x.value };
  if (x instanceof Duration) {
    if (x.value < 1) throw new WindowValidationError(`${call}(): the ${what} must be at least 1 ms, got ${x.value} ms`);
    return { unit: 'ms', value: x.value };
  }
  throw new WindowValidationError(`${call}(): the ${what} must be Count.of(n) or Duration.ofMillis/ofSeconds(…), got ${String(x)}`);
}

function durationOf(x: Duration, call: string, min = 1): number {
  if (!(x instanceof Duration)) throw new WindowValidationError(`${call}(): expects a Duration (Duration.ofMillis/ofSeconds(…)), got ${String(x)}`);
  if (x.value < min) throw new WindowValidationError(`${call}(): must be at least ${min} ms, got ${x.value} ms`);
  return x.value;
}
