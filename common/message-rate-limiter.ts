/**
 * Per-message rate limiting for logs: the first `perWindow` occurrences of a
 * message (by key) in each window pass, the rest are counted. When a key's
 * window rolls over, or at `drain()`, the caller learns how many were
 * suppressed, so a flood of one message becomes a few lines and a count while
 * a different message in the meantime still gets through. The clock is
 * injected so tests need not sleep.
 */
export interface RateLimiterOptions {
  perWindow?: number;
  windowMs?: number;
  now?: () => number;
  /** Keys remembered at most; the oldest window is dropped (and reported) beyond it. */
  maxKeys?: number;
}

export interface Admission {
  /** Log this occurrence. */
  show: boolean;
  /** Occurrences of this key suppressed in its previous window (report before this one). */
  suppressedBefore: number;
}

interface KeyWindow {
  start: number;
  shown: number;
  suppressed: number;
}

export class MessageRateLimiter {
  private readonly perWindow: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly maxKeys: number;
  private readonly windows = new Map<string, KeyWindow>();
  /** Suppressed counts of keys evicted before they could be reported. */
  private evicted: { key: string; suppressed: number }[] = [];

  constructor(opts: RateLimiterOptions = {}) {
    this.perWindow = opts.perWindow ?? 5;
    this.windowMs = opts.windowMs ?? 10_000;
    this.now = opts.now ?? Date.now;
    this.maxKeys = opts.maxKeys ?? 1000;
  }

  admit(key: string): Admission {
    const now = this.now();
    let w = this.windows.get(key);
    let suppressedBefore = 0;
    if (w && now - w.start >= this.windowMs) {
      suppressedBefore = w.suppressed;
      this.windows.delete(key);
      w = undefined;
    }
    if (!w) {
      w = { start: now, shown: 0, suppressed: 0 };
      this.windows.set(key, w);
      if (this.windows.size > this.maxKeys) this.evictOldest();
    }
    if (w.shown < this.perWindow) {
      w.shown++;
      return { show: true, suppressedBefore };
    }
    w.suppressed++;
    return { show: false, suppressedBefore };
  }

  /** Every key with occurrences suppressed and not yet reported; forgets them (call at the end of a run). */
  drain(): { key: string; suppressed: number }[] {
    const out = this.evicted;
    this.evicted = [];
    for (const [key, w] of this.windows) if (w.suppressed > 0) out.push({ key, suppressed: w.suppressed });
    this.windows.clear();
    return out;
  }

  private evictOldest(): void {
    const first = this.windows.entries().next().value;
    if (!first) return;
    const [key, w] = first;
    this.windows.delete(key);
    if (w.suppressed > 0) this.evicted.push({ key, suppressed: w.suppressed });
  }
}
