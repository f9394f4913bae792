/**
 * Nimbus's memory as its health endpoint and /metrics show it: the whole of
 * `process.memoryUsage()` (RSS, V8 heap used and reserved, memory outside the
 * heap held by JS objects, ArrayBuffers) and the V8 heap as it stood just
 * after the latest major (mark-sweep-compact) collection. Heap used is a
 * sawtooth between collections; what survives a major one is the floor a leak
 * raises and allocation churn does not, so a soak reads that figure
 * (bench/scale.bench.ts). The floor is taken when V8 reports the collection
 * (a PerformanceObserver entry, delivered just after it), before much new
 * garbage can pile up.
 */
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

export interface NimbusMemory {
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  externalBytes: number;
  arrayBuffersBytes: number;
  /** Heap used just after the latest major collection; null before the first. */
  heapAfterMajorGcBytes: number | null;
  /** Major collections seen since nimbus started. */
  majorGcs: number;
}

export class MemoryWatch {
  private observer: PerformanceObserver | null = null;
  private afterMajor: number | null = null;
  private majors = 0;

  constructor(private readonly heapUsed: () => number = () => getHeapStatistics().used_heap_size) {}

  /** Starts watching collections (idempotent). */
  start(): this {
    if (this.observer) return this;
    this.observer = new PerformanceObserver((list) => this.onEntries(list.getEntries()));
    this.observer.observe({ entryTypes: ['gc'] });
    return this;
  }

  stop(): void {
    this.observer?.disconnect();
    this.observer = null;
  }

  /** Takes the collections V8 reported (the observer's callback; a test hands them in). */
  onEntries(entries: readonly PerformanceEntry[]): void {
    for (const e of entries) {
      const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      this.majors++;
      this.afterMajor = this.heapUsed();
    }
  }

  usage(): NimbusMemory {
    const m = process.memoryUsage();
    return {
      rssBytes: m.rss,
      heapUsedBytes: m.heapUsed,
      heapTotalBytes: m.heapTotal,
      externalBytes: m.external,
      arrayBuffersBytes: m.arrayBuffers,
      heapAfterMajorGcBytes: this.afterMajor,
      majorGcs: this.majors,
    };
  }
}
