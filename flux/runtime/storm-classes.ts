/**
 * Storm's classes that its Flux examples and tests name, run by hstorm's own
 * equivalents: the Flux shell wrappers become hstorm's ShellSpout and
 * ShellBolt (same constructor arguments, same config methods), and the small
 * test bolts and spout are rewritten here. A Flux file naming them runs
 * unchanged (flux-examples' multilang.yaml, flux-core's shell_test.yaml).
 */
import { BasicBolt, Count, Duration, ShellBolt, ShellSpout, Spout, WindowedBolt, TimeUnit } from '../../topology-sdk/index.js';
import type { BasicOutputCollector, Conf, OutputCollector, OutputFieldsDeclarer, SpoutOutputCollector, TopologyContext, Tuple, TupleWindow } from '../../topology-sdk/index.js';
import type { BuiltinClassName } from './plan.js';

/** Storm's fully qualified names → the built-in that runs them. */
export const STORM_CLASSES: Readonly<Record<string, BuiltinClassName>> = {
  'org.apache.storm.flux.wrappers.spouts.FluxShellSpout': 'FluxShellSpout',
  'org.apache.storm.flux.wrappers.bolts.FluxShellBolt': 'FluxShellBolt',
  'org.apache.storm.flux.wrappers.bolts.LogInfoBolt': 'LogInfoBolt',
  'org.apache.storm.testing.TestWordCounter': 'TestWordCounter',
  'org.apache.storm.testing.TestWordSpout': 'TestWordSpout',
  'org.apache.storm.topology.base.BaseWindowedBolt$Count': 'WindowCount',
  'org.apache.storm.topology.base.BaseWindowedBolt$Duration': 'WindowDuration',
  'org.apache.storm.flux.examples.TestWindowBolt': 'TestWindowBolt',
  'org.apache.storm.flux.examples.TestPrintBolt': 'TestPrintBolt',
};

/** Output streams and component config of Storm's Flux shell wrappers (`setDefaultStream`, `setNamedStream`, `addComponentConfig`). */
class ShellWrapperState {
  readonly streams = new Map<string, string[]>();
  config: Record<string, unknown> | null = null;

  declare(d: OutputFieldsDeclarer): void {
    for (const [stream, fields] of this.streams) {
      if (stream === 'default') d.declare(fields);
      else d.declareStream(stream, fields);
    }
  }

  add(key: string, value: unknown): void {
    (this.config ??= {})[key] = value;
  }
}

/** Storm's FluxShellSpout(command[], outputFields[]?): a ShellSpout whose streams and config come from the Flux file. */
export class FluxShellSpout extends ShellSpout {
  private readonly flux = new ShellWrapperState();

  constructor(command: string[], outputFields?: string[]) {
    super({ command });
    if (outputFields) this.setDefaultStream(outputFields);
  }

  addComponentConfig(key: string, value: unknown): void {
    this.flux.add(key, value);
  }

  setDefaultStream(outputFields: string[]): void {
    this.setNamedStream('default', outputFields);
  }

  setNamedStream(name: string, outputFields: string[]): void {
    this.flux.streams.set(name, outputFields);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    this.flux.declare(d);
  }

  /** Storm's IComponent.getComponentConfiguration: the Flux runtime adds it to the component's config. */
  override getComponentConfiguration(): Record<string, unknown> | null {
    return this.flux.config;
  }
}

/** Storm's FluxShellBolt(command[], outputFields[]?): a ShellBolt whose streams and config come from the Flux file. */
export class FluxShellBolt extends ShellBolt {
  private readonly flux = new ShellWrapperState();

  constructor(command: string[], outputFields?: string[]) {
    super({ command });
    if (outputFields) this.setDefaultStream(outputFields);
  }

  addComponentConfig(key: string, value: unknown): void {
    this.flux.add(key, value);
  }

  setDefaultStream(outputFields: string[]): void {
    this.setNamedStream('default', outputFields);
  }

  setNamedStream(name: string, outputFields: string[]): void {
    this.flux.streams.set(name, outputFields);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    this.flux.declare(d);
  }

  override getComponentConfiguration(): Record<string, unknown> | null {
    return this.flux.config;
  }
}

/** Storm's LogInfoBolt: logs every tuple at info (in the worker log) and emits nothing. */
export class LogInfoBolt extends BasicBolt {
  private ctx!: TopologyContext;

  override prepare(_conf: Conf, ctx: TopologyContext): void {
    this.ctx = ctx;
  }

  execute(tuple: Tuple): void {
    this.ctx.log.info({ source: tuple.getSourceComponent(), stream: tuple.getSourceStreamId(), values: tuple.getValues() }, 'tuple');
  }
}

/** Storm's TestWordCounter: counts the word in each tuple's first value and emits (word, count). */
export class TestWordCounter extends BasicBolt {
  private readonly counts = new Map<string, number>();

  execute(tuple: Tuple, collector: BasicOutputCollector): void {
    const word = tuple.getString(0);
    const count = (this.counts.get(word) ?? 0) + 1;
    this.counts.set(word, count);
    collector.emit([word, count]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word', 'count']);
  }
}

const WORDS = ['nathan', 'mike', 'jackson', 'golda', 'bertels'];
/** Storm's TestWordSpout sleeps 100 ms per tuple; here nextTuple emits nothing until 100 ms have passed, and the spout wait strategy idles. */
const WORD_INTERVAL_MS = 100;

/** Storm's TestWordSpout: a random word of five every 100 ms, untracked (no message id), on field `word`. */
export class TestWordSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private last = 0;

  override open(_conf: Conf, _ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
  }

  nextTuple(): void {
    const now = Date.now();
    if (now - this.last < WORD_INTERVAL_MS) return;
    this.last = now;
    this.collector.emit([WORDS[Math.floor(Math.random() * WORDS.length)]]);
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word']);
  }
}

/**
 * Storm's `BaseWindowedBolt.Count(value)` (and its `Count.of(value)`): a Flux file makes one with `constructorArgs`
 * and hands it to a windowed bolt's `withWindow` / `withTumblingWindow` config method; `new` gives hstorm's Count.
 */
export class WindowCount {
  constructor(value: number) {
    // A constructor may return another object: the bolt's config methods take hstorm's own Count.
    return new Count(value);
  }

  static of(value: number): Count {
    return Count.of(value);
  }
}

/** Storm's `BaseWindowedBolt.Duration(value, timeUnit)` and its factories (`seconds`, `minutes`, …): hstorm's Duration. */
export class WindowDuration {
  constructor(value: number, timeUnit: string) {
    // A Flux file gives the enum by its name, maybe qualified.
    const unit = String(timeUnit).replace(/^(java\.util\.concurrent\.)?TimeUnit\./, '');
    if (!Object.hasOwn(TimeUnit, unit)) {
      throw new TypeError(`BaseWindowedBolt$Duration(${String(value)}, ${String(timeUnit)}): the time unit must be one of ${Object.keys(TimeUnit).join(', ')}`);
    }
    return new Duration(value, unit as TimeUnit);
  }

  static of(ms: number): Duration {
    return Duration.of(ms);
  }

  static seconds(n: number): Duration {
    return Duration.seconds(n);
  }

  static minutes(n: number): Duration {
    return Duration.minutes(n);
  }

  static hours(n: number): Duration {
    return Duration.hours(n);
  }

  static days(n: number): Duration {
    return Duration.days(n);
  }
}

/** Storm's flux-examples TestWindowBolt: emits the size of each window on field `count`. */
export class TestWindowBolt extends WindowedBolt {
  private collector!: OutputCollector;

  override prepare(_conf: Conf, _ctx: TopologyContext, collector: OutputCollector): void {
    this.collector = collector;
  }

  execute(window: TupleWindow): void {
    this.collector.emit([window.get().length]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['count']);
  }
}

/** Storm's flux-examples TestPrintBolt: writes each tuple to the worker's stdout (its log), emits nothing. */
export class TestPrintBolt extends BasicBolt {
  execute(tuple: Tuple): void {
    process.stdout.write(`source: ${tuple.getSourceComponent()}:${tuple.getSourceTask()}, stream: ${tuple.getSourceStreamId()}, values: ${JSON.stringify(tuple.getValues())}\n`);
  }
}

/** The constructors behind each built-in name. */
export const BUILTINS: Readonly<Record<BuiltinClassName, abstract new (...args: never[]) => unknown>> = {
  FluxShellSpout,
  FluxShellBolt,
  LogInfoBolt,
  TestWordCounter,
  TestWordSpout,
  WindowCount,
  WindowDuration,
  TestWindowBolt,
  TestPrintBolt,
};
