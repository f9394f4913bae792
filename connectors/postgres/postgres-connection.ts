/**
 * How the PostgreSQL connectors reach their database: a pg Pool built from the
 * options (host, port, user, database, or a connection string), with the
 * password or the whole connection string read from an environment variable
 * where the component runs — or pg's own PG* variables (PGHOST, PGPASSWORD, …),
 * which apply to whatever the options leave out. Nothing of it is logged but
 * host:port/database.
 */
import pg from 'pg';
import { z } from 'zod';
import type { ComponentLogger } from '../../topology-sdk/index.js';
import { ConnectorConfigError } from '../common/connector-errors.js';

export const postgresConnectionSchema = z.strictObject({
  host: z.string().min(1).optional(),
  port: z.number().int().min(1).max(65535).optional(),
  user: z.string().min(1).optional(),
  database: z.string().min(1).optional(),
  /** The name of an environment variable holding the password (PGPASSWORD applies when neither this nor a connection string sets one). */
  passwordEnv: z.string().min(1).optional(),
  /** `postgresql://user:password@host:port/database`; wins over the fields above. */
  connectionString: z.string().min(1).optional(),
  /** The name of an environment variable holding the connection string; wins over `connectionString`. */
  connectionStringEnv: z.string().min(1).optional(),
  /** Connections the pool keeps at most (one batch uses one). */
  poolSize: z.number().int().min(1).default(2),
  connectTimeoutMs: z.number().int().min(1).default(5_000),
});
export type PostgresConnectionOptions = z.output<typeof postgresConnectionSchema>;

function fromEnv(connector: string, option: string, name: string): string {
  const v = process.env[name];
  if (v === undefined || v === '') throw new ConnectorConfigError(connector, option, `the environment variable ${name} is not set where the component runs`);
  return v;
}

/** pg's client config for the options, with what is read from the environment. */
export function postgresConfig(connector: string, o: PostgresConnectionOptions): pg.PoolConfig {
  const connectionString = o.connectionStringEnv !== undefined ? fromEnv(connector, 'connection.connectionStringEnv', o.connectionStringEnv) : o.connectionString;
  return {
    ...(connectionString !== undefined ? { connectionString } : { host: o.host, port: o.port, user: o.user, database: o.database }),
    ...(o.passwordEnv !== undefined ? { password: fromEnv(connector, 'connection.passwordEnv', o.passwordEnv) } : {}),
    max: o.poolSize,
    connectionTimeoutMillis: o.connectTimeoutMs,
  };
}

/** host:port/database, for messages. */
export function postgresAddress(config: pg.PoolConfig): string {
  if (config.connectionString) {
    try {
      const u = new URL(config.connectionString);
      return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
    } catch {
      return '(unparsable connection string)';
    }
  }
  return `${config.host ?? process.env.PGHOST ?? 'localhost'}:${config.port ?? process.env.PGPORT ?? 5432}/${config.database ?? process.env.PGDATABASE ?? ''}`;
}

/** A pool whose idle connections' errors (the server restarting) are logged, not thrown at the process. */
export function postgresPool(config: pg.PoolConfig, log: ComponentLogger, address: string): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on('error', (err) => log.warn({ address, reason: err.message }, 'an idle PostgreSQL connection failed; the next batch opens a new one'));
  return pool;
}

/** Runs `work` in one transaction on one pooled connection; a failure rolls back and discards the connection. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    client.release();
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release(err instanceof Error ? err : true);
    throw err;
  }
}
