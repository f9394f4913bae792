/**
 * hstorm/connectors/postgres — PostgreSQL connectors on the `pg` library:
 * PostgresBolt (rows written a batch per transaction, tuples acked after the
 * COMMIT, idempotent upsert by default) and PostgresLookupBolt (tuples
 * enriched from a table, one query per batch). A topology that does not
 * import this module never loads pg. docs/connectors.md.
 *
 * @example
 * import { PostgresBolt } from 'hstorm/connectors/postgres';
 * builder.setBolt('store', () => new PostgresBolt({
 *   connection: { host: '127.0.0.1', database: 'app', user: 'app', passwordEnv: 'APP_DB_PASSWORD' },
 *   table: 'counts', columns: ['word', 'count'], conflictColumns: ['word'],
 * }), 2).fieldsGrouping('count', ['word']);
 */
export { PostgresBolt } from './postgres-bolt.js';
export type { PostgresBoltOptions } from './postgres-bolt.js';
export { PostgresLookupBolt } from './postgres-lookup-bolt.js';
export type { PostgresLookupBoltOptions } from './postgres-lookup-bolt.js';
