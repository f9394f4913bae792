/**
 * Redis to PostgreSQL, the pipeline a user recognises: page-view events from
 * a Redis stream, parsed (garbage counted and dropped), enriched with the
 * user's country by a lookup in a Redis hash, counted per (country, page) and
 * upserted into PostgreSQL. Every event is XACKed only once its counts are
 * committed; a worker killed or a server restarted on the way loses nothing.
 *
 *   events (RedisStreamSpout) → parse → country (RedisLookupBolt) → count (fields: country, page) → store (PostgresBolt)
 *
 *   node dist/examples/redis-to-postgres/seed.js --events 20000     # table, users' countries, events
 *   npx hstorm local examples/redis-to-postgres --duration 20
 *
 * Without the servers it says how to start them (servers.ts). Config:
 * `redis.url` (default redis://127.0.0.1:6379); PostgreSQL through libpq's
 * PG* variables (default 127.0.0.1:5432); `topology.workers` (default 2).
 */
import { TopologyBuilder, type TopologyModuleContext } from 'hstorm';
import { PostgresBolt } from 'hstorm/connectors/postgres';
import { RedisLookupBolt, RedisStreamSpout } from 'hstorm/connectors/redis';
import { COUNTRY_HASH, COUNTS_TABLE, CountViews, EVENTS_STREAM, ParseEvent } from './page-views.js';
import { HOW_TO_START, reachable } from './servers.js';

export default async ({ config }: TopologyModuleContext) => {
  const redisUrl = typeof config['redis.url'] === 'string' ? config['redis.url'] : 'redis://127.0.0.1:6379';
  const redis = new URL(redisUrl);
  const pgHost = process.env.PGHOST ?? '127.0.0.1';
  const pgPort = Number(process.env.PGPORT ?? 5432);
  const missing = [
    ...((await reachable(redis.hostname, Number(redis.port || 6379))) ? [] : [`Redis at ${redis.hostname}:${redis.port || 6379}`]),
    // A unix-socket PGHOST (a directory) is left to pg to try.
    ...(pgHost.startsWith('/') || (await reachable(pgHost, pgPort)) ? [] : [`PostgreSQL at ${pgHost}:${pgPort}`]),
  ];
  if (missing.length > 0) throw new Error(`${missing.join(' and ')} did not answer.${HOW_TO_START}`);

  const b = new TopologyBuilder();
  b.setSpout('events', () => new RedisStreamSpout({ url: redisUrl, stream: EVENTS_STREAM, entryFields: ['user', 'page'] }), 1);
  b.setBolt('parse', () => new ParseEvent(), 2).shuffleGrouping('events');
  b.setBolt(
    'country',
    () => new RedisLookupBolt({ url: redisUrl, dataType: 'hash', additionalKey: COUNTRY_HASH, keyField: 'user', outputFields: ['user', 'page', 'country'], valueAs: 'country' }),
    2,
  ).shuffleGrouping('parse');
  b.setBolt('count', () => new CountViews(), 2).fieldsGrouping('country', ['country', 'page']);
  // Fields grouping again: one store task per key, so two tasks never race to write one row.
  b.setBolt('store', () => new PostgresBolt({ table: COUNTS_TABLE, columns: ['country', 'page', 'views'], conflictColumns: ['country', 'page'] }), 2).fieldsGrouping('count', [
    'country',
    'page',
  ]);
  return b.createTopology({ 'topology.workers': 2 });
};
