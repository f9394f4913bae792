/**
 * How the Redis connectors reach their server: a `redis://` URL given in the
 * options or read from an environment variable in the worker (so a password
 * need not sit in the topology's code), and a client that never reconnects or
 * queues commands on its own — BrokerLink (or the sink's next batch) decides
 * when to try again, so an outage is seen at once instead of hiding in an
 * offline queue. Messages name the host and port only, never the credentials.
 */
import { createClient } from 'redis';
import { z } from 'zod';
import { ConnectorConfigError } from '../common/connector-errors.js';

export const redisConnectionShape = {
  /** `redis://[user:password@]host:port[/db]` (default redis://127.0.0.1:6379). */
  url: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** The name of an environment variable holding the URL, read where the component runs; wins over `url`. */
  urlEnv: z.string().min(1).optional(),
  /** How long a connection attempt may take. */
  connectTimeoutMs: z.number().int().min(1).default(5_000),
};
const connection = z.strictObject(redisConnectionShape);
export type RedisConnectionOptions = z.output<typeof connection>;

function newClient(url: string, o: RedisConnectionOptions) {
  return createClient({ url, socket: { reconnectStrategy: false, connectTimeout: o.connectTimeoutMs }, disableOfflineQueue: true });
}
export type RedisClient = ReturnType<typeof newClient>;

/** The URL to connect to: from `urlEnv` when set (throwing, naming the variable, when it is missing). */
export function redisUrl(connector: string, o: RedisConnectionOptions, env: NodeJS.ProcessEnv = process.env): string {
  if (o.urlEnv === undefined) return o.url;
  const url = env[o.urlEnv];
  if (!url) throw new ConnectorConfigError(connector, 'urlEnv', `the environment variable ${o.urlEnv} is not set where the component runs`);
  return url;
}

/** host:port of a Redis URL, for messages. */
export function redisAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return '(unparsable redis URL)';
  }
}

/** Connects a client that reports every error to `onError` and never reconnects or queues by itself. */
export async function connectRedis(url: string, o: RedisConnectionOptions, onError: (err: unknown) => void): Promise<RedisClient> {
  const client = newClient(url, o);
  client.on('error', onError);
  try {
    await client.connect();
  } catch (err) {
    client.destroy();
    throw err;
  }
  return client;
}

/** Closes a client at once, whatever its state. */
export function dropRedis(client: RedisClient | null): void {
  if (client?.isOpen) client.destroy();
}

/**
 * A client for the sink and lookup bolts: connected on first use, dropped on any error, and connected again by the
 * next batch — a batch that meets a server that is down fails (its tuples are replayed) and the one after tries anew.
 */
export class RedisOnDemand {
  private client: RedisClient | null = null;
  private connecting: Promise<RedisClient> | null = null;

  constructor(
    private readonly url: string,
    private readonly options: RedisConnectionOptions,
  ) {}

  get(): Promise<RedisClient> {
    if (this.client?.isReady) return Promise.resolve(this.client);
    this.connecting ??= connectRedis(this.url, this.options, () => this.drop())
      .then((c) => (this.client = c))
      .finally(() => (this.connecting = null));
    return this.connecting;
  }

  drop(): void {
    dropRedis(this.client);
    this.client = null;
  }
}
