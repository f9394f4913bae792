/**
 * Signals between components (DESIGN §8): a signal is a znode under
 * /signals/<topology>/<component>/<name>. Senders write it; every task that
 * registered a handler holds a one-shot watch, re-arms it on each callback
 * and compares versions on the re-read, so the latest value is never missed
 * (values written between two reads coalesce into the newest one).
 */
import type { ClusterState } from '../../common/cluster-state.js';
import { isStateError } from '../../common/cluster-state.js';
import { ZkPaths } from '../../common/zk-paths.js';
import type { Signal } from '../../topology-sdk/context.js';
import type { Logger } from '../../common/logger.js';
import { SignalContentionError } from '../errors.js';

type Handler = (s: Signal) => void;

/** Compare-and-set rounds a send tries before it gives up (each lost one means another sender wrote meanwhile). */
const SEND_ATTEMPTS = 5;

interface Subscription {
  path: string;
  name: string;
  handlers: Handler[];
  lastVersion: number;
  closed: boolean;
}

export class SignalHub {
  private readonly subs = new Map<string, Subscription>();
  delivered = 0;
  corrupt = 0;

  constructor(
    private readonly store: ClusterState,
    private readonly topologyId: string,
    private readonly log: Logger,
  ) {}

  async send(component: string, name: string, value: unknown, from: { component: string; task: number }): Promise<void> {
    const path = ZkPaths.signal(this.topologyId, component, name);
    for (let attempt = 0; attempt < SEND_ATTEMPTS; attempt++) {
      const stat = await this.store.exists(path);
      const seq = stat ? stat.version + 1 : 0;
      const data = Buffer.from(JSON.stringify({ name, value, seq, from, time: Date.now() } satisfies Signal));
      try {
        if (stat) await this.store.set(path, data, stat.version);
        else await this.store.create(path, data, { parents: true });
        return;
      } catch (err) {
        // Another sender won the race: read the new version and try again.
        if (isStateError(err, 'BAD_VERSION') || isStateError(err, 'NODE_EXISTS') || isStateError(err, 'NO_NODE')) continue;
        throw err;
      }
    }
    throw new SignalContentionError(component, name, SEND_ATTEMPTS);
  }

  on(component: string, name: string, handler: Handler): void {
    const path = ZkPaths.signal(this.topologyId, component, name);
    let sub = this.subs.get(path);
    if (sub) {
      sub.handlers.push(handler);
      return;
    }
    sub = { path, name, handlers: [handler], lastVersion: -1, closed: false };
    this.subs.set(path, sub);
    void this.read(sub);
  }

  close(): void {
    for (const s of this.subs.values()) s.closed = true;
    this.subs.clear();
  }

  private async read(sub: Subscription): Promise<void> {
    if (sub.closed) return;
    try {
      const stat = await this.store.exists(sub.path, () => void this.read(sub));
      if (!stat) return; // the exists-watch fires on creation
      const { data, stat: s2 } = await this.store.get(sub.path);
      if (s2.version <= sub.lastVersion) return;
      sub.lastVersion = s2.version;
      let signal: Signal;
      try {
        signal = JSON.parse(data.toString('utf8')) as Signal;
      } catch {
        this.corrupt++;
        this.log.warn({ path: sub.path, version: s2.version }, 'ignored a corrupt signal value');
        return;
      }
      this.delivered++;
      for (const h of sub.handlers) {
        try {
          h(signal);
        } catch (err) {
          this.log.warn({ err, signal: sub.name }, 'signal handler threw');
        }
      }
    } catch (err) {
      if (sub.closed) return;
      this.log.warn({ err, path: sub.path }, 'reading a signal failed; retrying');
      setTimeout(() => void this.read(sub), 500).unref();
    }
  }
}
