/**
 * Algorithm 3 of H-Storm: GPU workers → GPU slots, with β trading GPU
 * performance against idleness.
 *
 *   score = β × perf_norm + (1 − β) × spare,  spare = (A − U) / A
 *
 * Each pick takes the best-scoring GPU that has a free slot, a free port on
 * its node and the GPU memory the worker declared (ties: node id, GPU id),
 * then U++ changes that GPU's score. Memory is a filter, not a term of the
 * score: the paper's formula stays as it is.
 *
 * GPUs with the same (perf_norm, A, U) always score the same whatever β is, so
 * they share a bucket ordered by (node id, GPU id): a pick compares one top per
 * bucket instead of re-sorting every GPU in the cluster. Real clusters have a
 * handful of GPU models, hence a handful of buckets.
 */
import { describeGpuMemory, gpuMemoryFits, type PoolGpu, type SlotPool } from './slot-pool.js';

export interface GpuPick {
  gpu: PoolGpu;
  port: number;
  /** The score, its terms and the runners-up: what `describe` shows. */
  reason: string;
}

interface Bucket {
  perfNorm: number;
  slots: number;
  used: number;
  heap: RankHeap;
}

/** Score differences below this are ties (β × a + (1 − β) × b is not exact in binary). */
const TIE = 1e-12;

export function gpuScore(beta: number, perfNorm: number, slots: number, used: number): number {
  const spare = slots > 0 ? (slots - used) / slots : 0;
  return beta * perfNorm + (1 - beta) * spare;
}

export class GpuScoreIndex {
  private readonly buckets = new Map<string, Bucket>();
  private readonly list: Bucket[] = [];

  constructor(private readonly pool: SlotPool) {
    for (const g of pool.gpus) {
      if (g.used < g.slots && pool.freePorts(pool.nodes[g.node]!) > 0) this.insert(g);
    }
  }

  /**
   * Best GPU for one GPU worker needing `memMB` GPU memory under β; takes its
   * slot, the memory and a port. Undefined when no GPU can take it.
   */
  pick(beta: number, memMB = 0): GpuPick | undefined {
    const tops: { bucket: Bucket; gpu: PoolGpu; score: number }[] = [];
    // GPUs of a bucket whose memory is too full for this worker, set aside so the bucket's next one is seen; put back below.
    const skipped: [Bucket, number[]][] = [];
    for (const b of this.list) {
      let gpu = this.cleanTop(b);
      let aside: number[] | null = null;
      while (gpu && !gpuMemoryFits(gpu, memMB)) {
        (aside ??= []).push(b.heap.pop()!);
        gpu = this.cleanTop(b);
      }
      if (aside) skipped.push([b, aside]);
      if (gpu) tops.push({ bucket: b, gpu, score: gpuScore(beta, b.perfNorm, b.slots, b.used) });
    }
    if (!tops.length) {
      for (const [b, ranks] of skipped) for (const r of ranks) b.heap.push(r);
      return undefined;
    }
    tops.sort((x, y) => (Math.abs(x.score - y.score) > TIE ? y.score - x.score : x.gpu.rank - y.gpu.rank));
    const best = tops[0]!;
    best.bucket.heap.pop();
    for (const [b, ranks] of skipped) for (const r of ranks) b.heap.push(r);
    const memBefore = describeGpuMemory(best.gpu);
    const port = this.pool.takeGpuSlot(best.gpu, memMB);
    if (best.gpu.used < best.gpu.slots && this.pool.freePorts(this.pool.nodes[best.gpu.node]!) > 0) {
      this.insert(best.gpu);
    }
    const memNote = memMB > 0 ? `; needs ${memMB} MB GPU memory (${memBefore} before)` : '';
    return { gpu: best.gpu, port, reason: this.describe(beta, best, tops) + memNote };
  }

  private describe(
    beta: number,
    best: { bucket: Bucket; gpu: PoolGpu; score: number },
    tops: { bucket: Bucket; gpu: PoolGpu; score: number }[],
  ): string {
    const b = best.bucket;
    const spare = b.slots > 0 ? (b.slots - b.used) / b.slots : 0;
    const node = this.pool.nodes[best.gpu.node]!;
    const shown = tops
      .slice(0, 4)
      .map((t) => `${t.gpu.info.id}@${this.pool.nodes[t.gpu.node]!.id} ${fmt(t.score)}`)
      .join(', ');
    const more = tops.length > 4 ? ` (+${tops.length - 4} lower score classes)` : '';
    return (
      `GPU slot by Algorithm 3 (β=${beta}): ${best.gpu.info.name} ${best.gpu.info.id} on ${node.id} ` +
      `score ${fmt(best.score)} = β×perf ${fmt(b.perfNorm)} + (1−β)×spare ${fmt(spare)} (U=${b.used}/${b.slots} before this worker); ` +
      `best candidates: ${shown}${more}`
    );
  }

  /** The bucket's first GPU that can still take a worker; drops GPUs whose node ran out of ports. */
  private cleanTop(b: Bucket): PoolGpu | undefined {
    for (;;) {
      const rank = b.heap.peek();
      if (rank === undefined) return undefined;
      const g = this.pool.gpus[rank]!;
      const node = this.pool.nodes[g.node]!;
      if (g.used === b.used && this.pool.freePorts(node) > 0) return g;
      b.heap.pop();
      // A slot taken outside this index: file the GPU under its real U. A node without
      // ports never gets one back during a call, so its GPUs leave for good.
      if (g.used !== b.used && g.used < g.slots && this.pool.freePorts(node) > 0) this.insert(g);
    }
  }

  private insert(g: PoolGpu): void {
    const key = `${g.perfNorm}|${g.slots}|${g.used}`;
    let b = this.buckets.get(key);
    if (!b) {
      b = { perfNorm: g.perfNorm, slots: g.slots, used: g.used, heap: new RankHeap() };
      this.buckets.set(key, b);
      this.list.push(b);
    }
    b.heap.push(g.rank);
  }
}

function fmt(x: number): string {
  return x.toFixed(3);
}

/** Binary min-heap of GPU ranks: each bucket's GPUs in (node id, GPU id) order. */
class RankHeap {
  private readonly a: number[] = [];

  peek(): number | undefined {
    return this.a[0];
  }

  push(x: number): void {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= x) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = x;
  }

  pop(): number | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (!a.length || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && a[r]! < a[l]! ? r : l;
      if (a[c]! >= last) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = last;
    return top;
  }
}
