/**
 * hstorm/connectors/redis — Redis connectors: RedisStreamSpout (a stream read
 * through a consumer group, entries XACKed when their tuple trees complete),
 * RedisBolt (writes a batch per MULTI/EXEC, tuples acked after EXEC) and
 * RedisLookupBolt (tuples enriched from Redis, one MGET/HMGET per batch). A
 * topology that does not import this module never loads the Redis client.
 * docs/connectors.md.
 *
 * @example
 * import { RedisStreamSpout } from 'hstorm/connectors/redis';
 * builder.setSpout('events', () => new RedisStreamSpout({ url: 'redis://127.0.0.1:6379', stream: 'events' }), 2);
 */
export { RedisStreamSpout } from './redis-stream-spout.js';
export type { RedisStreamSpoutOptions } from './redis-stream-spout.js';
export { RedisBolt } from './redis-bolt.js';
export type { RedisBoltOptions } from './redis-bolt.js';
export { RedisLookupBolt } from './redis-lookup-bolt.js';
export type { RedisLookupBoltOptions } from './redis-lookup-bolt.js';
