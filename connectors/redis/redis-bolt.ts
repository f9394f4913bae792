/**
 * RedisBolt (Storm's RedisStoreBolt, batched): writes each tuple's value
 * under its key, a batch per MULTI/EXEC, and acks the batch's tuples only
 * after EXEC returned; a failed batch fails them all, to be replayed.
 *
 * Data types, with Storm's meaning of key and additional key:
 *   string      SET key value
 *   hash        HSET additionalKey key value
 *   set         SADD key value
 *   sorted-set  ZADD additionalKey value(score) key(member)
 *   list        RPUSH key value
 * All but `list` are idempotent: a replayed tuple writes the same thing again.
 * `list` appends, so a replay appends twice; its docs say so. Values that are
 * not strings, numbers or bytes are written as JSON.
 */
import { z } from 'zod';
import type { Tuple } from '../../topology-sdk/index.js';
import type { ConnectorClock } from '../common/connector-clock.js';
import { parseOptions } from '../common/connector-options.js';
import { batchOptionsSchema } from '../common/tuple-batcher.js';
import { RedisBatchingBolt } from './redis-batching-bolt.js';
import { redisConnectionShape } from './redis-connection.js';

const CONNECTOR = 'RedisBolt';

const optionsSchema = z
  .strictObject({
    ...redisConnectionShape,
    dataType: z.enum(['string', 'hash', 'set', 'sorted-set', 'list']),
    /** The input field holding the key (the hash field for `hash`, the member for `sorted-set`). */
    keyField: z.string().min(1),
    /** The input field holding the value (the score for `sorted-set`). */
    valueField: z.string().min(1),
    /** The hash (`hash`) or sorted set (`sorted-set`) written to. */
    additionalKey: z.string().min(1).optional(),
    /** Prepended to every key taken from a tuple. */
    keyPrefix: z.string().default(''),
    batch: batchOptionsSchema.prefault({}),
  })
  .check((ctx) => {
    const o = ctx.value;
    if ((o.dataType === 'hash' || o.dataType === 'sorted-set') && o.additionalKey === undefined) {
      ctx.issues.push({ code: 'custom', path: ['additionalKey'], input: undefined, message: `dataType '${o.dataType}' writes into one key: name it` });
    }
  });
export type RedisBoltOptions = z.input<typeof optionsSchema>;
type Options = z.output<typeof optionsSchema>;

export class RedisBolt extends RedisBatchingBolt {
  private readonly o: Options;

  constructor(options: RedisBoltOptions, clock?: ConnectorClock) {
    const o = parseOptions(CONNECTOR, optionsSchema, options);
    super(CONNECTOR, o, clock);
    this.o = o;
  }

  protected fieldsRead(): [string, string[]][] {
    return [
      ['keyField', [this.o.keyField]],
      ['valueField', [this.o.valueField]],
    ];
  }

  protected async writeBatch(tuples: readonly Tuple[]): Promise<void> {
    await this.withRedis((client) => {
      const tx = client.multi();
      const extra = this.o.additionalKey ?? '';
      for (const t of tuples) {
        const key = this.o.keyPrefix + String(t.getValueByField(this.o.keyField));
        const value = t.getValueByField(this.o.valueField);
        switch (this.o.dataType) {
          case 'string':
            tx.set(key, redisValue(value));
            break;
          case 'hash':
            tx.hSet(extra, key, redisValue(value));
            break;
          case 'set':
            tx.sAdd(key, redisValue(value));
            break;
          case 'sorted-set':
            tx.zAdd(extra, { score: Number(value), value: key });
            break;
          case 'list':
            tx.rPush(key, redisValue(value));
            break;
        }
      }
      return tx.exec();
    });
  }
}

/** What Redis stores for a tuple value: strings, numbers and bytes as they are, anything else as JSON. */
export function redisValue(v: unknown): string | Buffer {
  if (typeof v === 'string') return v;
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v) ?? '';
}
