/**
 * RedisStreamSpout: a Redis stream read through a consumer group, with
 * Kafka's at-least-once discipline (storm-kafka-client's): an entry is XACKed
 * only when its tuple tree completes, so the group's pending-entries list
 * (PEL) holds exactly what is in flight.
 *
 * - One consumer group per component (default `<topology name>.<component>`),
 *   created at the stream's start (`startFrom: 'earliest'`) or end; each task
 *   is a named consumer (`<component>-<task index>`), the same name after a
 *   restart.
 * - On (re)connect a task first reads back its own pending entries (XREADGROUP
 *   from id 0), so what a killed worker held is emitted again by its
 *   successor; then new entries (`>`), at most topology.max.spout.pending held.
 * - Entries pending on another consumer that has been idle longer than
 *   `claimIdleMs` (a task that died and was not restarted, or a consumer of a
 *   smaller parallelism) are claimed (XPENDING + XCLAIM with that minimum idle
 *   time: XAUTOCLAIM's work, restricted to idle consumers so that a live
 *   task's long-retried entries are not taken from it).
 * - Tuple fields: `stream`, `id` (the entry id, also the message id), then the
 *   entry's fields as one `fields` map, or, with `entryFields: [...]`, one
 *   tuple field per named entry field (null when the entry lacks it).
 */
import { z } from 'zod';
import type { Conf, TopologyContext, Values } from '../../topology-sdk/index.js';
import { parseOptions } from '../common/connector-options.js';
import type { ConnectorClock } from '../common/connector-clock.js';
import { QueueSpout, queueSpoutOptionsShape } from '../common/queue-spout.js';
import { connectRedis, dropRedis, redisAddress, redisConnectionShape, redisUrl, type RedisClient } from './redis-connection.js';

const CONNECTOR = 'RedisStreamSpout';

const optionsSchema = z.strictObject({
  ...redisConnectionShape,
  ...queueSpoutOptionsShape,
  /** The stream's key. */
  stream: z.string().min(1),
  /** The consumer group; default `<topology name>.<component id>`. */
  group: z.string().min(1).optional(),
  /** Where a group created by the spout starts: the stream's first entry, or entries added from now on. */
  startFrom: z.enum(['earliest', 'latest']).default('earliest'),
  /** Emit these entry fields as tuple fields (in this order) instead of one `fields` map. */
  entryFields: z.array(z.string().min(1)).min(1).optional(),
  /** Entries one XREADGROUP asks for at most (fewer when less room is left under max.spout.pending). */
  readCount: z.number().int().min(1).default(500),
  /** How long one XREADGROUP waits for new entries. */
  blockMs: z.number().int().min(1).default(100),
  /** Entries pending on a consumer idle this long are claimed by a live task. */
  claimIdleMs: z.number().int().min(1).default(60_000),
  /** How often a task looks for idle consumers. */
  claimIntervalMs: z.number().int().min(1).default(10_000),
});
export type RedisStreamSpoutOptions = z.input<typeof optionsSchema>;
type Options = z.output<typeof optionsSchema>;

/** An entry as held: its fields (null: deleted from the stream while pending). */
type Entry = Record<string, string> | null;

export class RedisStreamSpout extends QueueSpout<Entry> {
  private readonly o: Options;
  private url = '';
  private group = '';
  private consumer = '';
  private cmd: RedisClient | null = null;
  private reader: RedisClient | null = null;
  /** Where the read of our own pending entries has got to; null once it is done (then new entries, `>`). */
  private pelCursor: string | null = '0';
  private reading = false;
  /** Entry ids whose tree completed, waiting for the next XACK (kept across an outage: a lost XACK is a redelivery). */
  private toAck: string[] = [];
  private readonly acking_ = new Set<string>();
  private ackScheduled = false;
  private cancelClaim: (() => void) | null = null;
  /** The fewest entries worth a read while the spout still has some to emit. */
  private minRead = 1;

  constructor(options: RedisStreamSpoutOptions, clock?: ConnectorClock) {
    const o = parseOptions(CONNECTOR, optionsSchema, options);
    super(CONNECTOR, o, clock);
    this.o = o;
  }

  protected outputFields(): string[] {
    return ['stream', 'id', ...(this.o.entryFields ?? ['fields'])];
  }

  protected valuesOf(key: string, entry: Entry): Values {
    if (!this.o.entryFields) return [this.o.stream, key, entry ?? {}];
    return [this.o.stream, key, ...this.o.entryFields.map((f) => entry?.[f] ?? null)];
  }

  protected address(): string {
    return redisAddress(this.url);
  }

  /** One read's worth beyond max.spout.pending: the next entries are there when trees complete, not a round trip later. */
  protected override readAhead(): number {
    return this.o.readCount;
  }

  protected prepare(conf: Conf, context: TopologyContext): void {
    this.minRead = Math.max(1, Math.min(this.o.readCount, Math.floor((conf['topology.max.spout.pending'] ?? 1000) / 4)));
    this.url = redisUrl(CONNECTOR, this.o);
    this.group = this.o.group ?? `${context.topologyName}.${context.componentId}`;
    this.consumer = `${context.componentId}-${context.taskIndex}`;
  }

  protected async connect(): Promise<void> {
    const lost = (err: unknown): void => this.link.lost(err);
    this.cmd = await connectRedis(this.url, this.o, lost);
    // Blocking reads get a connection of their own: XACKs must not wait behind a BLOCK.
    this.reader = await connectRedis(this.url, this.o, lost);
    try {
      await this.cmd.xGroupCreate(this.o.stream, this.group, this.o.startFrom === 'earliest' ? '0' : '$', { MKSTREAM: true });
    } catch (err) {
      if (!String((err as Error).message).startsWith('BUSYGROUP')) throw err;
    }
    this.pelCursor = '0';
    queueMicrotask(() => {
      this.wantMore();
      void this.flushAcks();
    });
    this.scheduleClaim();
  }

  protected async disconnect(): Promise<void> {
    this.cancelClaim?.();
    this.cancelClaim = null;
    dropRedis(this.reader);
    dropRedis(this.cmd);
    this.reader = this.cmd = null;
  }

  protected acknowledge(key: string): void {
    this.toAck.push(key);
    this.acking_.add(key);
    if (!this.ackScheduled) {
      this.ackScheduled = true;
      // One XACK for all the trees that completed in this turn of the event loop.
      setImmediate(() => void this.flushAcks());
    }
  }

  private flushAcks(): Promise<void> {
    this.ackScheduled = false;
    const cmd = this.cmd;
    if (!this.link.up || !cmd || this.toAck.length === 0) return Promise.resolve();
    const ids = this.toAck;
    this.toAck = [];
    return cmd.xAck(this.o.stream, this.group, ids).then(
      () => {
        for (const id of ids) this.acking_.delete(id);
      },
      (err: unknown) => {
        this.toAck.unshift(...ids);
        this.link.lost(err);
      },
    );
  }

  /** The XACKs of trees that completed are sent before the connection goes (else their entries would be delivered again). */
  override async close(): Promise<void> {
    await this.flushAcks();
    await super.close();
  }

  protected wantMore(): void {
    if (this.reading || !this.link.up || this.reader === null) return;
    const room = this.acking.room();
    // Trees complete one by one: reading as soon as one slot is free would mean a round trip per entry. Wait for a
    // quarter of max.spout.pending (or a full read) to be free, unless the spout has nothing left to emit.
    if (room === 0 || (room < this.minRead && this.acking.unemitted > 0)) return;
    this.reading = true;
    void this.read(this.reader, Math.min(room, this.o.readCount)).finally(() => {
      this.reading = false;
    });
  }

  private async read(reader: RedisClient, count: number): Promise<void> {
    const fromPel = this.pelCursor !== null;
    let got = 0;
    try {
      const reply = await reader.xReadGroup(
        this.group,
        this.consumer,
        { key: this.o.stream, id: this.pelCursor ?? '>' },
        fromPel ? { COUNT: count } : { COUNT: count, BLOCK: this.o.blockMs },
      );
      for (const s of reply ?? []) {
        for (const m of s.messages) {
          got++;
          if (fromPel) this.pelCursor = m.id;
          // A pending entry deleted from the stream comes back without fields: nothing to emit, XACK it.
          if (m.message === null) this.acknowledge(m.id);
          else if (!this.acking_.has(m.id)) this.acking.offer(m.id, { ...(m.message as Record<string, string>) });
        }
      }
    } catch (err) {
      this.link.lost(err);
      return;
    }
    if (fromPel && got === 0) this.pelCursor = null;
    // Go on reading while there is room; an empty blocking read just waited blockMs.
    setImmediate(() => this.wantMore());
  }

  private scheduleClaim(): void {
    this.cancelClaim = this.clock.after(this.o.claimIntervalMs, () => {
      this.cancelClaim = null;
      void this.claimFromIdleConsumers().finally(() => {
        if (this.link.up) this.scheduleClaim();
      });
    });
  }

  /** Takes over the entries of consumers idle longer than claimIdleMs, as room allows. */
  async claimFromIdleConsumers(): Promise<number> {
    const cmd = this.cmd;
    if (!cmd || !this.link.up) return 0;
    let claimed = 0;
    try {
      const consumers = await cmd.xInfoConsumers(this.o.stream, this.group);
      for (const c of consumers) {
        if (c.name === this.consumer || c.pending === 0 || c.idle < this.o.claimIdleMs) continue;
        const room = this.acking.room();
        if (room === 0) break;
        const pending = await cmd.xPendingRange(this.o.stream, this.group, '-', '+', Math.min(room, this.o.readCount), { consumer: c.name, IDLE: this.o.claimIdleMs });
        if (pending.length === 0) continue;
        const entries = await cmd.xClaim(this.o.stream, this.group, this.consumer, this.o.claimIdleMs, pending.map((p) => p.id));
        for (const m of entries) {
          if (m === null) continue;
          claimed++;
          this.acking.offer(m.id, { ...(m.message as Record<string, string>) });
        }
        this.context.log.info({ from: c.name, claimed: entries.length, idleMs: c.idle }, `${CONNECTOR}: claimed entries pending on an idle consumer`);
      }
    } catch (err) {
      this.link.lost(err);
    }
    return claimed;
  }
}
