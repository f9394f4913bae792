/**
 * Storm 2.x's LoadAwareShuffleGrouping semantics: a shuffle weighted by each
 * target's load (its receive queue's fill, 0..1), preferring tasks in this
 * worker. The weights are recomputed every `refreshMs`, not per tuple:
 *  - scope: this worker's tasks while their mean load stays at or below the
 *    higher bound (topology.localityaware.higher.bound); above it, every
 *    task; back to this worker's tasks once their mean load drops below the
 *    lower bound (topology.localityaware.lower.bound);
 *  - weight of a task in scope: 101 − 100 × load, so an idle task gets about
 *    100 times the share of a full one and none is starved.
 * An unknown load counts as 0. (Storm also has host- and rack-local scopes;
 * hstorm has only the worker-local and the everything scope.)
 */
import type { RoutingLoad } from './task-load.js';

export class LoadAwareShuffle {
  private scopeLocal: boolean;
  private nextRefresh = -Infinity;
  private scope: readonly number[] = [];
  /** Cumulative weights of `scope`. */
  private cumulative: number[] = [];

  constructor(
    private readonly tasks: readonly number[],
    private readonly localTasks: readonly number[],
    private readonly load: RoutingLoad,
    private readonly random: () => number,
  ) {
    this.scopeLocal = localTasks.length > 0;
  }

  /** Whether it currently routes only to tasks in this worker. */
  get localOnly(): boolean {
    return this.scopeLocal;
  }

  pick(): number {
    const now = this.load.clock();
    if (now >= this.nextRefresh) this.refresh(now);
    const total = this.cumulative[this.cumulative.length - 1]!;
    const r = this.random() * total;
    // Binary search for the first cumulative weight above r.
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! > r) hi = mid;
      else lo = mid + 1;
    }
    const pick = this.scope[lo]!;
    this.load.view.noteSent(pick);
    return pick;
  }

  private refresh(now: number): void {
    this.nextRefresh = now + this.load.refreshMs;
    const loadOf = (t: number) => this.load.view.loadFraction(t) ?? 0;
    if (this.localTasks.length > 0) {
      const localMean = this.localTasks.reduce((s, t) => s + loadOf(t), 0) / this.localTasks.length;
      if (this.scopeLocal && localMean > this.load.higherBound) this.scopeLocal = false;
      else if (!this.scopeLocal && localMean < this.load.lowerBound) this.scopeLocal = true;
    }
    this.scope = this.scopeLocal ? this.localTasks : this.tasks;
    let sum = 0;
    this.cumulative = this.scope.map((t) => (sum += 101 - Math.round(100 * Math.min(1, Math.max(0, loadOf(t))))));
  }
}
