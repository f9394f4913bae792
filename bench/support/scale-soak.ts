/**
 * What the scale soak (`npm run bench -- scale --soak MIN`) concludes from
 * nimbus's memory samples: a leak raises what survives collection, allocator
 * noise does not. Heap used is a sawtooth and RSS follows V8 sizing its heap
 * and the allocator keeping freed pages, so single samples say little; the
 * floors per 5 minutes — the heap as it stood after the latest major
 * collection (nimbus/memory-watch.ts), the lowest RSS — and a least-squares
 * line through them (MB per hour) are the verdict.
 */
import type { NimbusMemory } from '../../nimbus/memory-watch.js';

export interface MemorySample {
  atSecs: number;
  rssMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** Heap used after the latest major collection; null before the first. */
  heapAfterGcMb: number | null;
  majorGcs: number;
}

export interface MemoryFloor {
  /** Minute at which the 5-minute span ends. */
  minute: number;
  /** Lowest post-major-collection heap in the span (falls back to the lowest heap used when no collection was seen). */
  heapAfterGcMb: number;
  rssMb: number;
  heapTotalMb: number;
  externalMb: number;
  majorGcs: number;
}

/** A soak's post-GC heap floor may grow by at most this (MB/h) and still count as flat. */
export const FLAT_HEAP_MB_PER_HOUR = 10;

const MB = 2 ** 20;

export function memorySample(atSecs: number, m: NimbusMemory): MemorySample {
  return {
    atSecs,
    rssMb: m.rssBytes / MB,
    heapUsedMb: m.heapUsedBytes / MB,
    heapTotalMb: m.heapTotalBytes / MB,
    externalMb: m.externalBytes / MB,
    arrayBuffersMb: m.arrayBuffersBytes / MB,
    heapAfterGcMb: m.heapAfterMajorGcBytes === null ? null : m.heapAfterMajorGcBytes / MB,
    majorGcs: m.majorGcs,
  };
}

/** The floors of each `spanSecs` span (a span without samples is left out; a trailing partial span counts if it holds any). */
export function memoryFloors(samples: readonly MemorySample[], spanSecs = 300): MemoryFloor[] {
  const spans = new Map<number, MemorySample[]>();
  for (const s of samples) {
    const k = Math.max(0, Math.ceil(s.atSecs / spanSecs) - 1);
    let list = spans.get(k);
    if (!list) spans.set(k, (list = []));
    list.push(s);
  }
  return [...spans.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([k, list]) => {
      const min = (f: (s: MemorySample) => number): number => Math.min(...list.map(f));
      const afterGc = list.map((s) => s.heapAfterGcMb).filter((x): x is number => x !== null);
      return {
        minute: Math.min((k + 1) * spanSecs, Math.max(...list.map((s) => s.atSecs))) / 60,
        heapAfterGcMb: afterGc.length ? Math.min(...afterGc) : min((s) => s.heapUsedMb),
        rssMb: min((s) => s.rssMb),
        heapTotalMb: min((s) => s.heapTotalMb),
        externalMb: min((s) => s.externalMb),
        majorGcs: Math.max(...list.map((s) => s.majorGcs)),
      };
    });
}

/** Least-squares slope of y over x (per unit of x); 0 with fewer than two points. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, p) => a + p.x, 0) / n;
  const my = points.reduce((a, p) => a + p.y, 0) / n;
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  return sxx === 0 ? 0 : points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0) / sxx;
}

export interface MemoryVerdict {
  heapAfterGcMbPerHour: number;
  rssFloorMbPerHour: number;
  externalFloorMbPerHour: number;
  flat: boolean;
  text: string;
}

/**
 * The fit of the floors (MB/h), and whether the heap that survives collection
 * is flat. Writing a heap snapshot raises RSS for good (the allocator keeps
 * the pages it took), so RSS and external are fitted only over the spans that
 * begin at `rssFromMinute` or later (after the first snapshot).
 */
export function memoryVerdict(floors: readonly MemoryFloor[], rssFromMinute = 0): MemoryVerdict {
  const fit = (f: (x: MemoryFloor) => number, from = 0): number =>
    Math.round(slope(floors.filter((x) => x.minute - 5 >= from - 1e-9).map((x) => ({ x: x.minute / 60, y: f(x) }))) * 10) / 10;
  const heap = fit((x) => x.heapAfterGcMb);
  const rss = fit((x) => x.rssMb, rssFromMinute);
  const external = fit((x) => x.externalMb, rssFromMinute);
  const flat = floors.length >= 3 && heap <= FLAT_HEAP_MB_PER_HOUR;
  const text =
    floors.length < 3
      ? `too short to judge (${floors.length} 5-minute floors; 3 needed)`
      : `${flat ? 'flat' : 'GROWING'}: heap after major GC ${heap} MB/h (flat ≤ ${FLAT_HEAP_MB_PER_HOUR}), RSS floor ${rss} MB/h and external floor ${external} MB/h${rssFromMinute > 0 ? ` (from minute ${rssFromMinute}, after the first heap snapshot)` : ''}, over ${floors.length} 5-minute floors`;
  return { heapAfterGcMbPerHour: heap, rssFloorMbPerHour: rss, externalFloorMbPerHour: external, flat, text };
}
