/**
 * Decides when a node-zookeeper-client instance is stuck and must be replaced.
 *
 * node-zookeeper-client times out only the TCP connect: once the socket is
 * open it waits for the handshake answer forever, and once connected it never
 * notices a server that stopped answering (it has no read timeout). ZooKeeper
 * 3.8.0 leaves exactly such a socket open when a client connects in the first
 * moments after a restart (ZOOKEEPER-5051: closing the connection throws an
 * NPE before the socket is closed), so a client could wait on it for ever —
 * no reconnect, no expiry. ZooKeeper's own Java client bounds both waits;
 * this watchdog restores that bound from outside the library:
 *
 * - **no session**: the client has not been connected for `limitMs` (a
 *   handshake that is never answered, or a server that is down);
 * - **no answer**: connected, but a request got no answer within its deadline
 *   and nothing has been answered for `limitMs` after that (a half-open
 *   connection; a merely slow answer clears it).
 *
 * Replacing a client that merely waits for a server that is down is harmless:
 * the new client resumes the same session (ZooKeeperClusterState passes the
 * session id and password on), exactly as the old one would have.
 */
import { realIntervalClock, type IntervalClock } from '../interval-clock.js';

/** The watchdog's time source (common/interval-clock.ts): tests drive it by hand. */
export type WatchdogClock = IntervalClock;

export type StuckReason = 'no session' | 'no answer';

export class ConnectionWatchdog {
  /** Since when the current client has had no session (null while connected). */
  private disconnectedSince: number | null;
  /** Since when a request of the connected client has had no answer (null when answered). */
  private unansweredSince: number | null = null;
  private readonly stop: () => void;

  constructor(
    /** How long a client may go without a session, or without an answer, before it counts as stuck. */
    private readonly limitMs: number,
    private readonly onStuck: (reason: StuckReason, forMs: number) => void,
    private readonly clock: WatchdogClock = realIntervalClock,
    connected = false,
  ) {
    this.disconnectedSince = connected ? null : clock.now();
    // A few looks per limit: a stuck client is replaced at most a quarter limit late.
    this.stop = clock.every(Math.max(50, Math.floor(limitMs / 4)), () => this.check());
  }

  /** The client has a session. */
  connected(): void {
    this.disconnectedSince = null;
    this.unansweredSince = null;
  }

  /** The client lost its connection (it is trying to get one). */
  disconnected(): void {
    this.disconnectedSince ??= this.clock.now();
  }

  /** The server answered something (a result or an error): the connection works. */
  answered(): void {
    this.unansweredSince = null;
  }

  /** A request got no answer within its deadline (while disconnected that is expected, and "no session" covers it). */
  unanswered(): void {
    if (this.disconnectedSince !== null) return;
    this.unansweredSince ??= this.clock.now();
  }

  /** A fresh client replaced the stuck one: it starts without a session, with a full limit. */
  replaced(): void {
    this.disconnectedSince = this.clock.now();
    this.unansweredSince = null;
  }

  close(): void {
    this.stop();
  }

  /** Reports a stuck client (at most once per look); public for tests that step the clock. */
  check(): void {
    const now = this.clock.now();
    if (this.disconnectedSince !== null && now - this.disconnectedSince >= this.limitMs) {
      this.onStuck('no session', now - this.disconnectedSince);
    } else if (this.unansweredSince !== null && now - this.unansweredSince >= this.limitMs) {
      this.onStuck('no answer', now - this.unansweredSince);
    }
  }
}
