/**
 * A connector's connection to its broker or database, through outages: while
 * it is down the spout emits nothing; the outage is logged once, with the
 * address (never the credentials), and reported once as the component's last
 * error (what `hstorm describe` and the UI show while it lasts); reconnect
 * attempts follow with doubling back-off, and when one succeeds the spout
 * resumes where the broker's own bookkeeping says (pending entries, unacked
 * messages returned to the queue), so nothing is lost.
 */
import { z } from 'zod';
import type { ComponentLogger } from '../../topology-sdk/index.js';
import { realConnectorClock, type ConnectorClock } from './connector-clock.js';
import { ConnectorUnavailableError } from './connector-errors.js';

export const reconnectOptionsSchema = z.strictObject({
  /** The wait before the first reconnect attempt. */
  initialDelayMs: z.number().min(0).default(100),
  /** Waits double up to this. */
  maxDelayMs: z.number().min(1).default(5_000),
});
export type ReconnectOptions = z.output<typeof reconnectOptionsSchema>;

export interface BrokerLinkOptions {
  /** The component's kind, for messages ("RedisStreamSpout"). */
  connector: string;
  /** Where it connects, without credentials ("127.0.0.1:6379"). */
  address: string;
  /** Connects and sets up what the spout reads from; throws when it cannot. */
  connect: () => Promise<void>;
  /** Drops a broken connection (called before each reconnect and at close; must not throw). */
  disconnect: () => Promise<void>;
  log: ComponentLogger;
  reportError: (err: unknown) => void;
  reconnect: ReconnectOptions;
  clock?: ConnectorClock;
}

export type LinkState = 'connecting' | 'up' | 'down' | 'closed';

export class BrokerLink {
  private linkState: LinkState = 'connecting';
  private delayMs: number;
  private cancelTimer: (() => void) | null = null;
  private downSince: number | null = null;
  /** The dropping of the broken connection, which a reconnect attempt waits for. */
  private disconnecting: Promise<void> = Promise.resolve();
  private readonly clock: ConnectorClock;
  /** Outages so far, for the spout's metrics. */
  outages = 0;
  /** The reason of the outage under way, null while up. */
  lastReason: string | null = null;

  constructor(private readonly o: BrokerLinkOptions) {
    this.clock = o.clock ?? realConnectorClock;
    this.delayMs = o.reconnect.initialDelayMs;
  }

  get state(): LinkState {
    return this.linkState;
  }

  get up(): boolean {
    return this.linkState === 'up';
  }

  /** First connection; a broker that is down now is an outage like any other (the spout opens and waits), not a failure to open. */
  async start(): Promise<void> {
    await this.attempt();
  }

  /** A broker operation failed: the connection is treated as lost (once per outage) and reconnected. */
  lost(err: unknown): void {
    if (this.linkState !== 'up') return;
    this.beginOutage(err);
  }

  async close(): Promise<void> {
    this.linkState = 'closed';
    this.cancelTimer?.();
    this.cancelTimer = null;
    await this.o.disconnect();
  }

  /** How long the outage under way has lasted, 0 while up. */
  outageMs(): number {
    return this.downSince === null ? 0 : this.clock.now() - this.downSince;
  }

  /** A method, not a field read: TypeScript would keep the state narrowed across the await of connect(). */
  private closed(): boolean {
    return this.linkState === 'closed';
  }

  private beginOutage(err: unknown): void {
    const reason = reasonOf(err);
    this.linkState = 'down';
    this.outages++;
    this.lastReason = reason;
    this.downSince = this.clock.now();
    this.delayMs = this.o.reconnect.initialDelayMs;
    const error = new ConnectorUnavailableError(this.o.connector, this.o.address, reason);
    this.o.log.warn({ address: this.o.address, reason }, error.message);
    this.o.reportError(error);
    this.disconnecting = this.o.disconnect();
    this.schedule();
  }

  private schedule(): void {
    if (this.linkState !== 'down') return;
    const wait = this.delayMs;
    this.delayMs = Math.min(this.o.reconnect.maxDelayMs, Math.max(1, this.delayMs * 2));
    this.cancelTimer = this.clock.after(wait, () => {
      this.cancelTimer = null;
      void this.attempt();
    });
  }

  private async attempt(): Promise<void> {
    if (this.linkState === 'closed') return;
    const wasDown = this.linkState === 'down';
    this.linkState = 'connecting';
    try {
      await this.disconnecting;
      await this.o.connect();
    } catch (err) {
      if (this.closed()) return;
      if (wasDown) {
        // Still the same outage: already logged and reported; try again later.
        this.linkState = 'down';
        this.disconnecting = this.o.disconnect();
        this.schedule();
      } else {
        this.beginOutage(err);
      }
      return;
    }
    if (this.closed()) {
      await this.o.disconnect();
      return;
    }
    if (this.downSince !== null) {
      this.o.log.info({ address: this.o.address, outageMs: Math.round(this.outageMs()) }, `${this.o.connector}: ${this.o.address} reachable again; resuming`);
    }
    this.linkState = 'up';
    this.downSince = null;
    this.lastReason = null;
  }
}

/** The error's message without anything that looks like credentials in a URL (user:password@). */
export function reasonOf(err: unknown): string {
  // Node's connect errors to several addresses are AggregateErrors with an empty message; their code says it all.
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message || (err instanceof AggregateError ? (err.errors[0] as Error | undefined)?.message : '') || err.name : String(err);
  const text = typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  return text.replace(/\/\/[^/\s@]*@/g, '//***@').split('\n')[0]!.slice(0, 300);
}
