/**
 * What RedisBolt and RedisLookupBolt share: the client, connected on first
 * use and dropped when a batch fails (the next batch connects again), and
 * the check at prepare that the input declares the fields they read.
 */
import type { Conf } from '../../topology-sdk/index.js';
import { BatchingBolt } from '../common/batching-bolt.js';
import type { ConnectorClock } from '../common/connector-clock.js';
import type { BatchOptions } from '../common/tuple-batcher.js';
import { redisUrl, RedisOnDemand, type RedisClient, type RedisConnectionOptions } from './redis-connection.js';

export abstract class RedisBatchingBolt extends BatchingBolt {
  private redis: RedisOnDemand | null = null;

  protected constructor(
    connector: string,
    private readonly connection: RedisConnectionOptions & { batch: BatchOptions },
    clock?: ConnectorClock,
  ) {
    super(connector, connection.batch, clock);
  }

  /** Option → the input fields it names, checked at prepare. */
  protected abstract fieldsRead(): [option: string, fields: string[]][];

  protected open(_conf: Conf): void {
    for (const [option, fields] of this.fieldsRead()) this.requireFields(option, fields);
    this.redis = new RedisOnDemand(redisUrl(this.connectorName, this.connection), this.connection);
  }

  /** Runs a batch's commands; a failure drops the connection, so the next batch starts on a fresh one. */
  protected async withRedis<T>(work: (client: RedisClient) => Promise<T>): Promise<T> {
    const client = await this.redis!.get();
    try {
      return await work(client);
    } catch (err) {
      this.redis!.drop();
      throw err;
    }
  }

  protected shutdown(): Promise<void> {
    this.redis?.drop();
    return Promise.resolve();
  }
}
