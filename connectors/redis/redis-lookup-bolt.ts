/**
 * RedisLookupBolt (Storm's RedisLookupBolt, batched): enriches each tuple with
 * the value stored under its key — `string`: GET keyPrefix+key (one MGET per
 * batch); `hash`: HGET additionalKey key (one HMGET per batch). The emitted
 * tuple has `outputFields`: the one named `valueAs` (default `value`) gets the
 * value found, the others are copied from the input. A key with no value is
 * emitted with null (`missing: 'nulls'`) or not at all (`missing: 'skip'`),
 * and acked either way; a failed lookup fails the batch's tuples.
 */
import { z } from 'zod';
import type { OutputFieldsDeclarer, Tuple } from '../../topology-sdk/index.js';
import type { ConnectorClock } from '../common/connector-clock.js';
import { parseOptions } from '../common/connector-options.js';
import { batchOptionsSchema } from '../common/tuple-batcher.js';
import { RedisBatchingBolt } from './redis-batching-bolt.js';
import { redisConnectionShape } from './redis-connection.js';

const CONNECTOR = 'RedisLookupBolt';

const optionsSchema = z
  .strictObject({
    ...redisConnectionShape,
    dataType: z.enum(['string', 'hash']),
    keyField: z.string().min(1),
    /** The hash looked in (`hash`). */
    additionalKey: z.string().min(1).optional(),
    keyPrefix: z.string().default(''),
    /** The emitted tuple's fields: `valueAs` gets the value found, the others are input fields copied through. */
    outputFields: z.array(z.string().min(1)).min(1),
    valueAs: z.string().min(1).default('value'),
    missing: z.enum(['nulls', 'skip']).default('nulls'),
    batch: batchOptionsSchema.prefault({}),
  })
  .check((ctx) => {
    const o = ctx.value;
    if (o.dataType === 'hash' && o.additionalKey === undefined) ctx.issues.push({ code: 'custom', path: ['additionalKey'], input: undefined, message: "dataType 'hash' looks in one hash: name it" });
    if (!o.outputFields.includes(o.valueAs)) ctx.issues.push({ code: 'custom', path: ['outputFields'], input: o.outputFields, message: `must include "${o.valueAs}" (valueAs), the field the value found goes to` });
  });
export type RedisLookupBoltOptions = z.input<typeof optionsSchema>;
type Options = z.output<typeof optionsSchema>;

export class RedisLookupBolt extends RedisBatchingBolt {
  private readonly o: Options;

  constructor(options: RedisLookupBoltOptions, clock?: ConnectorClock) {
    const o = parseOptions(CONNECTOR, optionsSchema, options);
    super(CONNECTOR, o, clock);
    this.o = o;
  }

  protected fieldsRead(): [string, string[]][] {
    return [
      ['keyField', [this.o.keyField]],
      ['outputFields', this.o.outputFields.filter((f) => f !== this.o.valueAs)],
    ];
  }

  protected async writeBatch(tuples: readonly Tuple[]): Promise<void> {
    const keys = tuples.map((t) => this.o.keyPrefix + String(t.getValueByField(this.o.keyField)));
    const values = (await this.withRedis((client) => (this.o.dataType === 'string' ? client.mGet(keys) : client.hmGet(this.o.additionalKey!, keys)))) as (string | null)[];
    tuples.forEach((t, i) => {
      const value = values[i] ?? null;
      if (value === null && this.o.missing === 'skip') return;
      this.collector.emit(
        this.o.outputFields.map((f) => (f === this.o.valueAs ? value : t.getValueByField(f))),
        { anchors: t },
      );
    });
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    declarer.declare(this.o.outputFields);
  }
}
