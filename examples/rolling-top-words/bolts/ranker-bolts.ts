/**
 * storm-starter's AbstractRankerBolt, IntermediateRankingsBolt and TotalRankingsBolt: rankers keep the top N, and
 * on every tick tuple (every `emitFrequencySecs`, from getComponentConfiguration) emit a copy of their Rankings.
 * An intermediate ranker ranks [word, count] tuples of its share of the words; the total ranker merges the
 * intermediate rankings into the overall top N.
 */
import { appendFileSync } from 'node:fs';
import { BasicBolt, Fields, TupleUtils, Values, type BasicOutputCollector, type Conf, type OutputFieldsDeclarer, type TopologyContext, type Tuple } from 'hstorm';
import { RankableObjectWithFields, Rankings } from '../tools/rankings.js';

export abstract class AbstractRankerBolt extends BasicBolt {
  protected readonly rankings: Rankings;

  constructor(
    topN = 10,
    private readonly emitFrequencySecs = 2,
  ) {
    super();
    if (topN < 1) throw new RangeError(`topN must be >= 1 (you requested ${topN})`);
    if (emitFrequencySecs < 1) throw new RangeError(`The emit frequency must be >= 1 seconds (you requested ${emitFrequencySecs} seconds)`);
    this.rankings = new Rankings(topN);
  }

  execute(tuple: Tuple, collector: BasicOutputCollector): void {
    if (TupleUtils.isTick(tuple)) collector.emit(new Values(this.rankings.copy()));
    else this.updateRankingsWithTuple(tuple);
  }

  protected abstract updateRankingsWithTuple(tuple: Tuple): void;

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(new Fields('rankings'));
  }

  override getComponentConfiguration(): Record<string, unknown> {
    return TupleUtils.putTickFrequencyIntoComponentConfig({}, this.emitFrequencySecs);
  }
}

export class IntermediateRankingsBolt extends AbstractRankerBolt {
  protected updateRankingsWithTuple(tuple: Tuple): void {
    this.rankings.updateWith(RankableObjectWithFields.from(tuple));
  }
}

export class TotalRankingsBolt extends AbstractRankerBolt {
  private output: string | null = null;

  /** `rtw.output`: a file the overall top N is appended to at every emit (JSON lines), to watch the example run. */
  override prepare(conf: Conf, _ctx: TopologyContext): void {
    this.output = typeof conf['rtw.output'] === 'string' ? conf['rtw.output'] : null;
  }

  override execute(tuple: Tuple, collector: BasicOutputCollector): void {
    super.execute(tuple, collector);
    if (this.output && TupleUtils.isTick(tuple)) {
      appendFileSync(this.output, `${JSON.stringify(this.rankings.getRankings().map((r) => [r.getObject(), r.getCount()]))}\n`);
    }
  }

  protected updateRankingsWithTuple(tuple: Tuple): void {
    // A Rankings from an intermediate ranker, in this worker or another: registered, it arrives as one.
    const merged = tuple.getValue(0) as Rankings;
    this.rankings.updateWith(merged);
    this.rankings.pruneZeroCounts();
  }
}
