/**
 * storm-starter's RollingTopWords, ported in its structure: a word spout, a rolling count bolt that emits each word's
 * count over a sliding window on every tick tuple, intermediate rankers (fields grouping on the word) that keep the
 * top N of their share, and a total ranker (global grouping) that merges their Rankings into the overall top N.
 * Rankings and RankableObjectWithFields cross workers, so they are registered (Storm's topology.kryo.register).
 *
 *   hstorm local examples/rolling-top-words --duration 20 -c topology.workers=2
 *
 * Config (storm-starter's values by default):
 *   rtw.window.secs       the rolling count's window (9)
 *   rtw.emit.secs         how often the counts are emitted: its tick period (3)
 *   rtw.rank.emit.secs    how often the rankers emit their rankings (2)
 *   rtw.top.n             rankings' size (5)
 *   rtw.spout.interval.ms the word spout's pause between words (100, as TestWordSpout)
 *   rtw.spout.words       words each spout task emits before it stops (unlimited, as TestWordSpout; a test sets it)
 *   rtw.output            a file the final ranker appends the top N to at each emit (JSON lines)
 */
import { Spout, TopologyBuilder, Fields, Values, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type TopologyModuleContext } from 'hstorm';
import { RollingCountBolt } from './bolts/rolling-count-bolt.js';
import { IntermediateRankingsBolt, TotalRankingsBolt } from './bolts/ranker-bolts.js';
import { RankableObjectWithFields, Rankings } from './tools/rankings.js';

export const WORDS = ['nathan', 'mike', 'jackson', 'golda', 'bertels'];

const num = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);

/** storm-starter's TestWordSpout: a random word of WORDS every 100 ms (without blocking the worker as Utils.sleep would). */
export class TestWordSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private intervalMs = 100;
  private nextAt = 0;
  private left = Infinity;

  override open(conf: Conf, _ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    this.intervalMs = num(conf['rtw.spout.interval.ms'], 100);
    this.left = num(conf['rtw.spout.words'], Infinity);
  }

  nextTuple(): void {
    const now = Date.now();
    if (now < this.nextAt || this.left <= 0) return;
    this.nextAt = now + this.intervalMs;
    this.left--;
    this.collector.emit(new Values(WORDS[Math.floor(Math.random() * WORDS.length)]));
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(new Fields('word'));
  }
}

export default ({ config }: TopologyModuleContext) => {
  const windowSecs = num(config['rtw.window.secs'], 9);
  const emitSecs = num(config['rtw.emit.secs'], 3);
  const rankEmitSecs = num(config['rtw.rank.emit.secs'], 2);
  const topN = num(config['rtw.top.n'], 5);
  const builder = new TopologyBuilder();
  builder.registerSerialization(Rankings);
  builder.registerSerialization(RankableObjectWithFields);
  builder.setSpout('wordGenerator', () => new TestWordSpout(), 5);
  builder.setBolt('counter', () => new RollingCountBolt(windowSecs, emitSecs), 4).fieldsGrouping('wordGenerator', new Fields('word'));
  builder.setBolt('intermediateRanker', () => new IntermediateRankingsBolt(topN, rankEmitSecs), 4).fieldsGrouping('counter', new Fields('obj'));
  builder.setBolt('finalRanker', () => new TotalRankingsBolt(topN, rankEmitSecs)).globalGrouping('intermediateRanker');
  return builder.createTopology({ 'topology.workers': 1 });
};
