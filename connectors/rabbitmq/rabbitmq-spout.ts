/**
 * RabbitMqSpout: a RabbitMQ queue consumed with manual acknowledgement (Storm's
 * JMS/AMQP spouts' discipline): a message is acked on its channel only when
 * its tuple tree completes. The channel's prefetch is
 * topology.max.spout.pending, so the broker never has more unacked messages
 * out to a task than the task may have in flight. When the channel or the
 * connection dies the broker returns every unacked message to the queue; the
 * spout lets go of what it held from that channel (trees still out for them
 * are ignored when they complete) and, once reconnected, receives them again.
 *
 * Tuple fields: `routingKey`, `headers` (the AMQP headers table, {} when
 * none) and `body`, decoded as `body` says: `utf8` text (default), `json`
 * (a body that is not JSON is given up on at once: failure stream or dropped
 * and counted) or `binary` (the bytes). The message id is
 * `<channel number>:<delivery tag>`.
 */
import amqp, { type Channel, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { z } from 'zod';
import type { Conf, Values } from '../../topology-sdk/index.js';
import type { ConnectorClock } from '../common/connector-clock.js';
import { ConnectorConfigError } from '../common/connector-errors.js';
import { parseOptions } from '../common/connector-options.js';
import { QueueSpout, queueSpoutOptionsShape } from '../common/queue-spout.js';

const CONNECTOR = 'RabbitMqSpout';
/** How long a disconnect waits for the broker to confirm the close. */
const CLOSE_WAIT_MS = 2_000;

const optionsSchema = z.strictObject({
  ...queueSpoutOptionsShape,
  /** `amqp://[user:password@]host:port[/vhost]` (default amqp://127.0.0.1:5672, RabbitMQ's guest on localhost). */
  url: z.string().min(1).default('amqp://127.0.0.1:5672'),
  /** The name of an environment variable holding the URL, read where the spout runs; wins over `url`. */
  urlEnv: z.string().min(1).optional(),
  /** The queue to consume. */
  queue: z.string().min(1),
  /** Declare the queue (durable) when the spout connects; false: it must exist. */
  assertQueue: z.boolean().default(true),
  /** How the body becomes the `body` field. */
  body: z.enum(['utf8', 'json', 'binary']).default('utf8'),
  /** AMQP heartbeat, so a broker that stops answering is noticed. */
  heartbeatSecs: z.number().int().min(0).default(10),
});
export type RabbitMqSpoutOptions = z.input<typeof optionsSchema>;
type Options = z.output<typeof optionsSchema>;

interface Held {
  /** The channel it came on: an ack on any other is meaningless (and would close the channel). */
  generation: number;
  raw: ConsumeMessage;
  body: unknown;
}

export class RabbitMqSpout extends QueueSpout<Held> {
  private readonly o: Options;
  private url = '';
  private maxHeld = 1;
  private conn: ChannelModel | null = null;
  private channel: Channel | null = null;
  private generation = 0;

  constructor(options: RabbitMqSpoutOptions, clock?: ConnectorClock) {
    const o = parseOptions(CONNECTOR, optionsSchema, options);
    super(CONNECTOR, o, clock);
    this.o = o;
  }

  protected outputFields(): string[] {
    return ['routingKey', 'headers', 'body'];
  }

  protected valuesOf(_key: string, m: Held): Values {
    return [m.raw.fields.routingKey, m.raw.properties.headers ?? {}, m.body];
  }

  protected address(): string {
    try {
      const u = new URL(this.url);
      return `${u.hostname}:${u.port || '5672'}`;
    } catch {
      return '(unparsable amqp URL)';
    }
  }

  protected prepare(conf: Conf): void {
    if (this.o.urlEnv !== undefined) {
      const url = process.env[this.o.urlEnv];
      if (!url) throw new ConnectorConfigError(CONNECTOR, 'urlEnv', `the environment variable ${this.o.urlEnv} is not set where the spout runs`);
      this.url = url;
    } else {
      this.url = this.o.url;
    }
    this.maxHeld = conf['topology.max.spout.pending'] ?? 1000;
  }

  protected async connect(): Promise<void> {
    const u = new URL(this.url);
    if (!u.searchParams.has('heartbeat')) u.searchParams.set('heartbeat', String(this.o.heartbeatSecs));
    const conn = await amqp.connect(u.toString());
    this.conn = conn;
    const lost = (err?: unknown): void => this.link.lost(err ?? new Error('connection closed'));
    conn.on('error', lost);
    conn.on('close', lost);
    const ch = await conn.createChannel();
    ch.on('error', lost);
    ch.on('close', () => lost(new Error('channel closed')));
    await ch.prefetch(this.maxHeld);
    if (this.o.assertQueue) await ch.assertQueue(this.o.queue, { durable: true });
    const generation = ++this.generation;
    this.channel = ch;
    await ch.consume(
      this.o.queue,
      (raw) => {
        // null: the broker cancelled the consumer (the queue was deleted).
        if (raw === null) return lost(new Error(`the broker cancelled the consumer of queue ${this.o.queue}`));
        this.take(generation, raw);
      },
      { noAck: false },
    );
  }

  private take(generation: number, raw: ConsumeMessage): void {
    const key = `${generation}:${raw.fields.deliveryTag}`;
    let body: unknown = raw.content;
    let poison: string | null = null;
    if (this.o.body === 'utf8') body = raw.content.toString('utf8');
    else if (this.o.body === 'json') {
      try {
        body = JSON.parse(raw.content.toString('utf8'));
      } catch (err) {
        poison = `body is not JSON: ${(err as Error).message}`;
      }
    }
    this.acking.offer(key, { generation, raw, body }, poison);
  }

  protected async disconnect(): Promise<void> {
    const conn = this.conn;
    this.conn = null;
    this.channel = null;
    // The broker returns this channel's unacked messages to the queue: what the spout held from it comes again.
    this.acking?.forget();
    if (conn) {
      conn.removeAllListeners('close');
      conn.removeAllListeners('error');
      conn.on('error', () => undefined);
      // close() of a connection whose socket is already gone may never settle: wait a little, not for ever.
      await Promise.race([conn.close().catch(() => undefined), new Promise((r) => setTimeout(r, CLOSE_WAIT_MS).unref())]);
    }
  }

  protected acknowledge(_key: string, m: Held): void {
    if (m.generation !== this.generation || this.channel === null) return;
    try {
      this.channel.ack(m.raw);
    } catch (err) {
      this.link.lost(err);
    }
  }

  protected wantMore(): void {
    // The broker pushes up to the prefetch: nothing to ask for.
  }
}
