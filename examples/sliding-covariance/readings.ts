/**
 * The sensor side of the example: `channels` correlated readings per tuple
 * (a fixed mixing of independent standard normals, each channel of unit
 * variance), seeded so every run sends the same stream, with a spike of
 * +SPIKE standard deviations on one channel at each of `spikeIds`. The
 * spout emits them as `[id, readings]` with message ids, at most `rate` per
 * second; readings that fail are not sent again (a live sensor moves on).
 */
import { Spout, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext } from 'hstorm';
import { seededRandom } from '../matmul/matrix.js';

/** How far a spike stands out, in standard deviations of the channel. */
export const SPIKE = 20;

/** Reading ids that carry a spike: one every 250, from 125 (a full window lies before the first). */
export function spikeIds(readings: number): number[] {
  const out: number[] = [];
  for (let id = 125; id < readings; id += 250) out.push(id);
  return out;
}

/** Every reading of a stream, in order: row i is reading i (channels numbers each). */
export function readingStream(readings: number, channels: number, seed = 7): number[][] {
  const rnd = seededRandom(seed);
  const normal = () => {
    // Box–Muller: two uniforms, one standard normal.
    const u = Math.max(rnd(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
  };
  // Channel c mixes its own normal with its neighbour's (weights normalised: unit variance, correlation between neighbours).
  const a = 0.8;
  const b = Math.sqrt(1 - a * a);
  const spikes = new Set(spikeIds(readings));
  const rows: number[][] = [];
  for (let i = 0; i < readings; i++) {
    const z = Array.from({ length: channels }, normal);
    const row = z.map((v, c) => a * v + b * z[(c + 1) % channels]!);
    if (spikes.has(i)) row[Math.floor(i / 250) % channels]! += SPIKE;
    rows.push(row);
  }
  return rows;
}

export class ReadingSpout extends Spout {
  private collector!: SpoutOutputCollector;
  private rows: number[][] = [];
  private next = 0;
  private rate = Infinity;
  private startedAt = 0;

  override open(conf: Conf, _ctx: TopologyContext, c: SpoutOutputCollector): void {
    this.collector = c;
    this.rows = readingStream((conf['covariance.readings'] as number | undefined) ?? 2000, (conf['covariance.channels'] as number | undefined) ?? 8);
    if (typeof conf['covariance.rate'] === 'number') this.rate = conf['covariance.rate'];
    this.startedAt = Date.now();
  }

  nextTuple(): void {
    if (this.next >= this.rows.length) return;
    if (this.next >= ((Date.now() - this.startedAt) * this.rate) / 1000) return;
    const id = this.next++;
    this.collector.emit([id, this.rows[id]!], { messageId: id });
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['id', 'readings']);
  }
}
