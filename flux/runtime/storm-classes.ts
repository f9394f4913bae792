/**
 * Storm's classes that its Flux examples and tests name, run by hstorm's own
 * equivalents: the Flux shell wrappers become hstorm's ShellSpout and
 * ShellBolt (same constructor arguments, same config methods), and the small
 * test bolts and spout are rewritten here. A Flux file naming them runs
 * unchanged (flux-examples' multilang.yaml, flux-core's shell_test.yaml).
 */
import { BasicBolt, ShellBolt, ShellSpout, Spout } from '../../topology-sdk/index.js';
import type { BasicOutputCollector, Conf, OutputFieldsDeclarer, SpoutOutputCollector, TopologyContext, Tuple } from '../../topology-sdk/index.js';
import type { BuiltinClassName } from './plan.js';

/** Storm's fully qualified names → the built-in that runs them. */
export const STORM_CLASSES: Readonly<Record<string, BuiltinClassName>> = {
  'org.apache.storm.flux.wrappers.spouts.FluxShellSpout': 'FluxShellSpout',
  'org.apache.storm.flux.wrappers.bolts.FluxShellBolt': 'FluxShellBolt',
  'org.apache.storm.flux.wrappers.bolts.LogInfoBolt': 'LogInfoBolt',
  'org.apache.storm.testing.TestWordCounter': 'TestWordCounter',
  'org.apache.storm.testing.TestWordSpout': 'TestWordSpout',
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

/** The constructors behind each built-in name. */
export const BUILTINS: Readonly<Record<BuiltinClassName, abstract new (...args: never[]) => unknown>> = {
  FluxShellSpout,
  FluxShellBolt,
  LogInfoBolt,
  TestWordCounter,
  TestWordSpout,
};
