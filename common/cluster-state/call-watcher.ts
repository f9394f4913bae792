/**
 * Runs a user watcher off the caller's stack. A watcher that throws must not
 * unwind into a store's bookkeeping (or, for ZooKeeper, into the client
 * library's socket handler), so the error is logged and dropped.
 */
import type { Logger } from '../logger.js';
import type { WatchEvent, Watcher } from '../cluster-state.js';

export function callWatcher(watcher: Watcher, event: WatchEvent, log?: Logger): void {
  queueMicrotask(() => {
    try {
      watcher(event);
    } catch (err) {
      log?.error({ err, event }, 'cluster-state watcher threw');
    }
  });
}
