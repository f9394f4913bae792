/**
 * The session-state half of every ClusterState client. A new listener is first
 * told the current state, then every change, always asynchronously: callers
 * can subscribe at any time and still learn where the session stands, and a
 * listener can never run inside the store's own bookkeeping.
 */
import type { Logger } from '../logger.js';
import type { SessionState } from '../cluster-state.js';

type Listener = (state: SessionState) => void;

export class SessionStateEmitter {
  private readonly listeners = new Set<Listener>();

  constructor(
    private current: SessionState,
    private readonly log?: Logger,
  ) {}

  get state(): SessionState {
    return this.current;
  }

  subscribe(listener: Listener): () => void {
    // A wrapper per subscription, so subscribing one function twice gives two independent subscriptions.
    const entry: Listener = (s) => listener(s);
    this.listeners.add(entry);
    const at = this.current;
    queueMicrotask(() => {
      if (this.listeners.has(entry)) this.call(entry, at);
    });
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** Records `state` and tells listeners; repeated states are reported once. */
  emit(state: SessionState): void {
    if (state === this.current) return;
    this.current = state;
    for (const l of [...this.listeners]) queueMicrotask(() => this.listeners.has(l) && this.call(l, state));
  }

  clear(): void {
    this.listeners.clear();
  }

  private call(l: Listener, state: SessionState): void {
    try {
      l(state);
    } catch (err) {
      this.log?.error({ err, state }, 'cluster-state session listener threw');
    }
  }
}
