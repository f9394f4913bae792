/**
 * The connectors benchmark's topology: a Redis stream (RedisStreamSpout) →
 * one transform bolt → PostgreSQL (PostgresBolt, upsert on uid), acking on,
 * `bench.parallelism` tasks per component.
 *
 * Config: `bench.redis.url`, `bench.stream`, `bench.postgres.url`, `bench.table`, `bench.parallelism`.
 */
import { BasicBolt, TopologyBuilder, type BasicOutputCollector, type OutputFieldsDeclarer, type TopologyModuleContext, type Tuple } from 'hstorm';
import { PostgresBolt } from 'hstorm/connectors/postgres';
import { RedisStreamSpout } from 'hstorm/connectors/redis';
import { eventRow } from './event-transform.js';

class Transform extends BasicBolt {
  override execute(t: Tuple, c: BasicOutputCollector): void {
    c.emit(eventRow(t.getValueByField('fields') as Record<string, string>));
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['uid', 'cents', 'category']);
  }
}

export default ({ config }: TopologyModuleContext) => {
  const p = Number(config['bench.parallelism'] ?? 1);
  const b = new TopologyBuilder();
  b.setSpout('events', () => new RedisStreamSpout({ url: String(config['bench.redis.url']), stream: String(config['bench.stream']) }), p);
  b.setBolt('transform', () => new Transform(), p).localOrShuffleGrouping('events');
  b.setBolt(
    'store',
    () =>
      new PostgresBolt({
        connection: {
          connectionString: String(config['bench.postgres.url']),
          // Unset: PostgresBolt's default. Set for trials of the writers' concurrency (docs/benchmarks.md, Connectors).
          ...(config['bench.postgres.poolSize'] !== undefined && { poolSize: Number(config['bench.postgres.poolSize']) }),
        },
        table: String(config['bench.table']),
        columns: ['uid', 'cents', 'category'],
        conflictColumns: ['uid'],
      }),
    p,
  ).localOrShuffleGrouping('transform');
  return b.createTopology();
};
