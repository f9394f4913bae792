/**
 * The base of hstorm's queue spouts (RedisStreamSpout, RabbitMqSpout; a Kafka
 * spout would be a third): it ties the broker's acknowledgement to hstorm's
 * acking through SpoutAcking and rides out outages through BrokerLink, so a
 * subclass only says how to connect, how to take messages (pull them when
 * `wantMore` is called, or push them as they arrive) and how to acknowledge
 * one. docs/connectors.md walks through writing one.
 *
 * Message ids are the broker's keys (strings). A message is acknowledged to
 * the broker only when its tuple tree completes; a failed tree is retried
 * after storm-kafka-client's back-off; past `retry.maxRetries` the message goes
 * to the failure stream (`onMaxRetries: 'failure-stream'`, declared with the
 * spout's fields plus `reason`, tracked like any tuple and acknowledged to the
 * broker when its tree completes) or is dropped: acknowledged, counted in the
 * `connector.dropped` metric and reported.
 */
import { z } from 'zod';
import { Spout, type Conf, type Counter, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Values } from '../../topology-sdk/index.js';
import { BrokerLink, reconnectOptionsSchema } from './broker-link.js';
import { realConnectorClock, type ConnectorClock } from './connector-clock.js';
import { HstormError } from '../../topology-sdk/index.js';
import { retryOptionsSchema } from './retry-backoff.js';
import { SpoutAcking } from './spout-acking.js';

/** The options every queue spout takes, besides its broker's own. */
export const queueSpoutOptionsShape = {
  retry: retryOptionsSchema.prefault({}),
  /** What happens to a message whose retries are used up (or that cannot be decoded). */
  onMaxRetries: z.enum(['drop', 'failure-stream']).default('drop'),
  /** The stream given-up messages go to with onMaxRetries: 'failure-stream'. */
  failureStream: z.string().min(1).default('failed'),
  reconnect: reconnectOptionsSchema.prefault({}),
};
const common = z.strictObject(queueSpoutOptionsShape);
export type QueueSpoutOptions = z.output<typeof common>;

/** A message given up on and dropped (onMaxRetries: 'drop'), reported as the component's error. */
export class MessageDroppedError extends HstormError {
  constructor(
    readonly connector: string,
    readonly key: string,
    readonly reason: string,
  ) {
    super('HSTORM_ERR_CONNECTOR_DROPPED', `${connector}: dropped message ${key}: ${reason} (acknowledged to the broker; counted in connector.dropped)`);
  }
}

/** Used when acking is off and topology.max.spout.pending is null: still a bound on what the spout holds. */
const UNBOUNDED_PENDING_HOLD = 1000;

export abstract class QueueSpout<M> extends Spout {
  protected collector!: SpoutOutputCollector;
  protected context!: TopologyContext;
  protected link!: BrokerLink;
  protected acking!: SpoutAcking<M>;
  private retried!: Counter;
  private wantMoreScheduled = false;
  private dropped!: Counter;

  protected constructor(
    protected readonly connectorName: string,
    protected readonly queueOptions: QueueSpoutOptions,
    protected readonly clock: ConnectorClock = realConnectorClock,
  ) {
    super();
  }

  /** The fields of the default stream. */
  protected abstract outputFields(): string[];
  /** The values of a message's tuple, in outputFields' order. */
  protected abstract valuesOf(key: string, msg: M): Values;
  /** Where the broker is, for messages: host and port, never credentials. */
  protected abstract address(): string;
  /** Reads what the spout needs from its config and context (before the first connect). */
  protected abstract prepare(conf: Conf, context: TopologyContext): void;
  /** Connects and sets up reading; throws when the broker cannot be reached. */
  protected abstract connect(): Promise<void>;
  /** Drops the connection, if any; never throws. */
  protected abstract disconnect(): Promise<void>;
  /** Acknowledges a message to the broker (its tree completed, or it is dropped). */
  protected abstract acknowledge(key: string, msg: M): void;
  /** There may be room for more messages: a pulling spout fetches (`acking.room()` says how many). */
  protected abstract wantMore(): void;

  /**
   * Messages a spout may hold beyond topology.max.spout.pending, read ahead and ready to emit as soon as trees
   * complete (the executor still keeps the emitted ones in flight to max.spout.pending). 0 by default: a broker
   * that pushes up to a prefetch (RabbitMQ) needs none.
   */
  protected readAhead(): number {
    return 0;
  }

  override async open(conf: Conf, context: TopologyContext, collector: SpoutOutputCollector): Promise<void> {
    this.collector = collector;
    this.context = context;
    const pending = conf['topology.max.spout.pending'] ?? UNBOUNDED_PENDING_HOLD;
    this.acking = new SpoutAcking<M>(pending + this.readAhead(), this.queueOptions.retry, this.clock);
    this.retried = context.registerCounter('connector.retried');
    this.dropped = context.registerCounter('connector.dropped');
    context.registerGauge('connector.held', () => this.acking.size);
    context.registerGauge('connector.up', () => (this.link.up ? 1 : 0));
    context.registerGauge('connector.outages', () => this.link.outages);
    this.prepare(conf, context);
    this.link = new BrokerLink({
      connector: this.connectorName,
      address: this.address(),
      connect: () => this.connect(),
      disconnect: () => this.disconnect(),
      log: context.log,
      reportError: (err) => collector.reportError(err),
      reconnect: this.queueOptions.reconnect,
      clock: this.clock,
    });
    await this.link.start();
  }

  override nextTuple(): void {
    if (!this.link.up) return;
    let e = this.acking.next();
    if (!e) {
      // Nothing held to emit: ask for more (a pulling spout fetches in the background; one that can take at once has now).
      this.wantMore();
      e = this.acking.next();
      if (!e) return;
    }
    if (!e.exhausted) {
      this.collector.emit(this.valuesOf(e.key, e.msg), { messageId: e.key });
      return;
    }
    if (this.queueOptions.onMaxRetries === 'failure-stream') {
      this.collector.emit([...this.valuesOf(e.key, e.msg), e.reason], { stream: this.queueOptions.failureStream, messageId: e.key });
      return;
    }
    this.acking.acked(e.key);
    this.acknowledge(e.key, e.msg);
    this.dropped.inc();
    this.collector.reportError(new MessageDroppedError(this.connectorName, e.key, e.reason ?? 'given up'));
  }

  override ack(messageId: unknown): void {
    const key = messageId as string;
    const msg = this.acking.acked(key);
    if (msg === undefined) return; // let go after a reconnect: the broker delivers it again
    this.acknowledge(key, msg);
    // Acks arrive in bursts (a sink commits a batch): ask for more once the burst is over, with all the room it freed.
    if (!this.wantMoreScheduled) {
      this.wantMoreScheduled = true;
      setImmediate(() => {
        this.wantMoreScheduled = false;
        this.wantMore();
      });
    }
  }

  override fail(messageId: unknown): void {
    if (this.acking.failed(messageId as string) !== 'unknown') this.retried.inc();
  }

  override async close(): Promise<void> {
    await this.link?.close();
  }

  override declareOutputFields(declarer: OutputFieldsDeclarer): void {
    declarer.declare(this.outputFields());
    if (this.queueOptions.onMaxRetries === 'failure-stream') declarer.declareStream(this.queueOptions.failureStream, [...this.outputFields(), 'reason']);
  }
}
