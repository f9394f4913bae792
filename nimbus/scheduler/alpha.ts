/**
 * Algorithm 2 of H-Storm: executors → a fixed number of workers, with α
 * trading load balance against co-location of connected components.
 *
 *   Nmin = ceil(E / W), Nmax = E − W + 1, N = floor(Nmin + α × (Nmax − Nmin))
 *
 * N is the most executors one worker may hold. Components are walked in
 * topological order; a component's executors are dealt round-robin over the
 * workers that already hold its input components (while they have room), and
 * otherwise over empty workers first, then not-full ones. No worker exceeds N.
 */
import type { ExecutorRef } from '../../common/assignment.js';

export interface WorkerCap {
  /** N: the most executors one worker may hold. */
  n: number;
  nMin: number;
  nMax: number;
  e: number;
  w: number;
  alpha: number;
}

/**
 * N for E executors in W workers. Nmax is raised to Nmin when E < W (the
 * paper's formula assumes E ≥ W), and a 1e-9 slack keeps α × (Nmax − Nmin)
 * from losing a whole executor to binary rounding (0.3 × 10 = 2.9999…).
 */
export function workerCap(e: number, w: number, alpha: number): WorkerCap {
  if (w < 1) return { n: 0, nMin: 0, nMax: 0, e, w, alpha };
  const nMin = Math.ceil(e / w);
  const nMax = Math.max(nMin, e - w + 1);
  const n = Math.min(nMax, Math.max(nMin, Math.floor(nMin + alpha * (nMax - nMin) + 1e-9)));
  return { n, nMin, nMax, e, w, alpha };
}

export function describeCap(c: WorkerCap): string {
  return `N=${c.n} (α=${c.alpha}, E=${c.e}, W=${c.w}: Nmin=${c.nMin}, Nmax=${c.nMax})`;
}

/** Why a run of executors of one component landed in a worker. */
interface PlacementNote {
  component: string;
  count: number;
  /** Input components held by the worker that attracted them; empty when dealt to spread load. */
  attractedBy: string[];
  /** Extra words, e.g. "on the CPU backend: no GPU slot was available". */
  tag: string | null;
}

export class PackWorker {
  readonly executors: ExecutorRef[] = [];
  readonly components = new Set<string>();
  private readonly notes = new Map<string, PlacementNote>();

  add(x: ExecutorRef, attractedBy: string[], tag: string | null): void {
    this.executors.push(x);
    this.components.add(x.component);
    const key = `${x.component}\u0000${attractedBy.join(',')}\u0000${tag ?? ''}`;
    const note = this.notes.get(key);
    if (note) note.count++;
    else this.notes.set(key, { component: x.component, count: 1, attractedBy, tag });
  }

  get load(): number {
    return this.executors.length;
  }

  /** e.g. "count ×2 next to input split; spout ×1 spread". */
  describe(): string {
    const parts: string[] = [];
    for (const n of this.notes.values()) {
      const why = n.attractedBy.length ? `next to input ${n.attractedBy.join('+')}` : 'spread';
      parts.push(`${n.component} ×${n.count} ${why}${n.tag ? ` (${n.tag})` : ''}`);
    }
    return parts.join('; ');
  }
}

export interface PackComponent {
  id: string;
  inputs: readonly string[];
  executors: readonly ExecutorRef[];
  /** Carried into the worker's reason for these executors. */
  tag?: string | null;
}

/**
 * One set of workers being filled under a cap. The same packer is kept across
 * phases (GPU executors, then CPU executors topping up GPU workers) so that
 * input components placed in an earlier phase still attract.
 */
export class Packer {
  private readonly holders = new Map<string, Set<number>>();

  constructor(
    readonly workers: PackWorker[],
    public cap: number,
  ) {
    workers.forEach((w, i) => {
      for (const c of w.components) this.hold(c, i);
    });
  }

  /**
   * Places components' executors (given in topological order); returns those
   * that did not fit under the cap, in order.
   */
  place(components: readonly PackComponent[]): ExecutorRef[] {
    const left: ExecutorRef[] = [];
    for (const c of components) {
      const xs = c.executors;
      const tag = c.tag ?? null;
      let i = 0;
      const inputs = this.inputWorkers(c.inputs);
      if (inputs.length) {
        i = this.deal(xs, i, inputs, (w) => c.inputs.filter((inp) => this.workers[w]!.components.has(inp)), tag, c.id);
      }
      if (i < xs.length) {
        const empty: number[] = [];
        const notFull: number[] = [];
        this.workers.forEach((w, k) => {
          if (w.load === 0) empty.push(k);
          else if (w.load < this.cap) notFull.push(k);
        });
        i = this.deal(xs, i, [...empty, ...notFull], () => [], tag, c.id);
      }
      for (; i < xs.length; i++) left.push(xs[i]!);
    }
    return left;
  }

  /** Workers holding any of the inputs and still under the cap, in worker order. */
  private inputWorkers(inputs: readonly string[]): number[] {
    const seen = new Set<number>();
    for (const inp of inputs) for (const w of this.holders.get(inp) ?? []) seen.add(w);
    return [...seen].filter((w) => this.workers[w]!.load < this.cap).sort((a, b) => a - b);
  }

  private deal(
    xs: readonly ExecutorRef[],
    from: number,
    order: number[],
    why: (w: number) => string[],
    tag: string | null,
    component: string,
  ): number {
    const live = [...order];
    let i = from;
    let k = 0;
    while (i < xs.length && live.length) {
      if (k >= live.length) k = 0;
      const w = live[k]!;
      const worker = this.workers[w]!;
      if (worker.load >= this.cap) {
        live.splice(k, 1);
        continue;
      }
      worker.add(xs[i++]!, why(w), tag);
      this.hold(component, w);
      k++;
    }
    return i;
  }

  private hold(component: string, w: number): void {
    let ws = this.holders.get(component);
    if (!ws) this.holders.set(component, (ws = new Set()));
    ws.add(w);
  }
}

/** Algorithm 2 on fresh workers: E executors into W workers under N. */
export function packExecutors(
  components: readonly PackComponent[],
  w: number,
  alpha: number,
): { workers: PackWorker[]; cap: WorkerCap; packer: Packer; left: ExecutorRef[] } {
  const e = components.reduce((s, c) => s + c.executors.length, 0);
  const cap = workerCap(e, w, alpha);
  const workers = Array.from({ length: Math.max(0, w) }, () => new PackWorker());
  const packer = new Packer(workers, cap.n);
  // With W ≥ 1 the cap admits all E executors (W × N ≥ W × ceil(E/W) ≥ E): `left` is empty then.
  const left = packer.place(components);
  return { workers, cap, packer, left };
}
