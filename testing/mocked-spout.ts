/**
 * The spout completeTopology puts in place of a mocked one (Storm's FixedTupleSpout): it emits its share of the
 * mocked tuples once — task i of n takes every n-th, over all its streams in turn — each tracked under its own
 * message id and never replayed, and then nothing. The tuples reach it through the topology config (mocked-sources
 * key), in the wire codec's format, so their values arrive with their real types.
 */
import { Spout, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext } from '../topology-sdk/index.js';
import type { StreamDef } from '../common/topology-def.js';
import { decodeRecord } from '../worker/index.js';
import type { MockedData } from './mocked-sources.js';

/** Config key of the mocked tuples (a user key: outside hstorm's reserved prefixes), base64 of one wire record. */
export const MOCKED_SOURCES_KEY = 'testing.mocked.sources';

export function decodeMocked(conf: Readonly<Record<string, unknown>>): MockedData {
  const text = conf[MOCKED_SOURCES_KEY];
  return typeof text === 'string' && text ? (decodeRecord(Buffer.from(text, 'base64')) as MockedData) : {};
}

export class MockedSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private tuples: { stream: string; values: unknown[]; id: string }[] = [];
  private next = 0;

  constructor(
    private readonly id: string,
    private readonly streams: readonly StreamDef[],
  ) {
    super();
  }

  override open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    const mine = decodeMocked(conf)[this.id] ?? {};
    const all = Object.entries(mine).flatMap(([stream, list]) => list.map((values, i) => ({ stream, values, id: `${stream}#${i}` })));
    const n = ctx.componentTasks.length;
    this.tuples = all.filter((_t, i) => i % n === ctx.taskIndex);
  }

  nextTuple(): void {
    const t = this.tuples[this.next];
    if (!t) return;
    this.next++;
    this.collector.emit(t.stream, t.values, t.id);
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    for (const s of this.streams) d.declareStream(s.id, s.fields, { direct: s.direct });
  }
}
