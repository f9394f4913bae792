/**
 * Word count, the Storm classic: sentences → split into words → count per
 * word (fields grouping, so each word is counted by exactly one task).
 *
 *   hstorm local examples/word-count --duration 10 -c topology.workers=2
 *
 * Config (all optional):
 *   wordcount.sentences  sentences each spout task emits, then it goes quiet (default: unlimited)
 *   wordcount.output     file the count bolt appends its final counts to (JSON lines)
 *   wordcount.parallelism.split / .count  (default 2 / 2)
 */
import { appendFileSync } from 'node:fs';
import { BasicBolt, Spout, TopologyBuilder, type BasicOutputCollector, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Tuple, type TopologyModuleContext } from 'hstorm';

export const SENTENCES = [
  'the cow jumped over the moon',
  'an apple a day keeps the doctor away',
  'four score and seven years ago',
  'snow white and the seven dwarfs',
  'i am at two with nature',
];

/** Emits sentences round-robin with message ids and replays the ones that fail. */
export class SentenceSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private next = 0;
  private limit = Infinity;
  private readonly replay: number[] = [];
  private taskIndex = 0;

  override open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): void {
    this.collector = collector;
    this.taskIndex = ctx.taskIndex;
    const n = conf['wordcount.sentences'];
    if (typeof n === 'number') this.limit = n;
  }

  nextTuple(): void {
    const id = this.replay.shift() ?? (this.next < this.limit ? this.next++ : undefined);
    if (id === undefined) return;
    this.collector.emit([SENTENCES[(id + this.taskIndex) % SENTENCES.length]], { messageId: id });
  }

  override fail(messageId: unknown): void {
    this.replay.push(messageId as number);
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['sentence']);
  }
}

export class SplitBolt extends BasicBolt {
  execute(tuple: Tuple, collector: BasicOutputCollector): void {
    for (const word of tuple.getStringByField('sentence').split(' ')) collector.emit([word]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word']);
  }
}

export class CountBolt extends BasicBolt {
  private readonly counts = new Map<string, number>();
  private output: string | null = null;
  private task = 0;

  override prepare(conf: Conf, ctx: TopologyContext): void {
    this.output = typeof conf['wordcount.output'] === 'string' ? conf['wordcount.output'] : null;
    this.task = ctx.taskId;
  }

  execute(tuple: Tuple, collector: BasicOutputCollector): void {
    const word = tuple.getStringByField('word');
    const count = (this.counts.get(word) ?? 0) + 1;
    this.counts.set(word, count);
    collector.emit([word, count]);
  }

  override cleanup(): void {
    if (this.output) appendFileSync(this.output, JSON.stringify({ task: this.task, counts: Object.fromEntries(this.counts) }) + '\n');
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['word', 'count']);
  }
}

export default ({ config }: TopologyModuleContext) => {
  const num = (k: string, d: number) => (typeof config[k] === 'number' ? (config[k] as number) : d);
  const b = new TopologyBuilder();
  b.setSpout('sentences', () => new SentenceSpout(), num('wordcount.parallelism.spout', 1));
  b.setBolt('split', () => new SplitBolt(), num('wordcount.parallelism.split', 2)).shuffleGrouping('sentences');
  b.setBolt('count', () => new CountBolt(), num('wordcount.parallelism.count', 2)).fieldsGrouping('split', ['word']);
  return b.createTopology({ 'topology.workers': 2 });
};
