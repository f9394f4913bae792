/**
 * What `completeTopology` adds to a topology, inside every worker: spouts
 * replaced by MockedSpouts emitting fixed tuples (Storm's MockedSources /
 * FixedTupleSpout), and a capture bolt subscribed to every stream of every
 * component that writes each tuple it sees to a file of the run, so the test
 * can read back what each component emitted.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { BasicBolt, Spout, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Tuple } from '../topology-sdk/index.js';
import { CHECKPOINT_STREAM, type ComponentDef, type StreamDef } from '../common/topology-def.js';

/** Config keys the testing wrapper reads (user keys: outside hstorm's reserved prefixes). */
export const MOCKED_SOURCES_KEY = 'testing.mocked.sources';
export const CAPTURE_DIR_KEY = 'testing.capture.dir';
/** The capture bolt's component id. */
export const CAPTURE_COMPONENT = 'hstorm-testing-capture';

/** One captured tuple, as a line of the capture file. */
export interface CapturedLine {
  component: string;
  stream: string;
  values: unknown[];
}

/** JSON with bigints and bytes kept (tuples carry both). */
export function encodeValues(values: readonly unknown[]): string {
  return JSON.stringify(values, (_k, v: unknown) => {
    if (typeof v === 'bigint') return { $bigint: v.toString() };
    if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString('base64') };
    return v;
  });
}

/** Parses JSON written by encodeValues (a value list, or a whole capture line). */
export function decodeValues(text: string): unknown[] {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (typeof o.$bigint === 'string' && Object.keys(o).length === 1) return BigInt(o.$bigint);
      if (typeof o.$bytes === 'string' && Object.keys(o).length === 1) return new Uint8Array(Buffer.from(o.$bytes, 'base64'));
    }
    return v;
  }) as unknown[];
}

function redeclare(d: OutputFieldsDeclarer, streams: readonly StreamDef[]): void {
  for (const s of streams) d.declareStream(s.id, s.fields, { direct: s.direct });
}

/** Emits its share of the fixed tuples (task i of n takes every n-th), tracked with message ids, never replayed. */
export class MockedSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private tuples: unknown[][] = [];
  private next = 0;

  constructor(
    private readonly id: string,
    private readonly streams: readonly StreamDef[],
  ) {
    super();
  }

  override open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    const all = ((conf[MOCKED_SOURCES_KEY] as Record<string, unknown[][]> | undefined) ?? {})[this.id] ?? [];
    const n = ctx.componentTasks.length;
    this.tuples = all.filter((_t, i) => i % n === ctx.taskIndex);
  }

  nextTuple(): void {
    if (this.next >= this.tuples.length) return;
    const stream = this.streams.some((s) => s.id === 'default') ? 'default' : (this.streams[0]?.id ?? 'default');
    const i = this.next++;
    this.collector.emit(this.tuples[i]!, { stream, messageId: i });
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    redeclare(d, this.streams);
  }
}

/** Writes every tuple it receives to `<capture dir>/capture-<task>.jsonl`. */
export class CaptureBolt extends BasicBolt {
  private file = '';

  override prepare(conf: Conf, ctx: TopologyContext): void {
    const dir = conf[CAPTURE_DIR_KEY];
    // completeTopology sets it on every run; a missing one means the bolt runs outside that harness.
    if (typeof dir !== 'string') throw new TypeError(`${CAPTURE_DIR_KEY} is not set: CaptureBolt runs only inside completeTopology`);
    this.file = join(dir, `capture-${ctx.taskId}.jsonl`);
  }

  execute(t: Tuple): void {
    appendFileSync(this.file, `{"component":${JSON.stringify(t.sourceComponent)},"stream":${JSON.stringify(t.sourceStreamId)},"values":${encodeValues(t.values)}}\n`);
  }
}

/** The def of the capture bolt: one task, global grouping on every non-direct stream of every component. */
export function captureDef(components: readonly ComponentDef[]): ComponentDef {
  return {
    id: CAPTURE_COMPONENT,
    kind: 'bolt',
    parallelism: 1,
    streams: [],
    // Not the checkpoint stream of a stateful topology: runtime traffic, not what a component emitted.
    inputs: components.flatMap((c) => c.streams.filter((s) => !s.direct && s.id !== CHECKPOINT_STREAM).map((s) => ({ component: c.id, stream: s.id, grouping: { type: 'global' as const } }))),
    gpu: null,
    config: {},
  };
}
