/**
 * Storm's partial key grouping (Nasir et al., "The power of both choices"): a
 * key has two candidate tasks, from two independent hashes of its fields, and
 * each tuple goes to the candidate that will be done with it sooner — the
 * estimated wait of twoChoice's load signal (task-load.ts). Without figures for
 * both (none published yet, or stale) it goes to the candidate this emitter
 * sent fewer tuples to, which is what Storm's PartialKeyGrouping does always.
 */
import type { LoadView } from './task-load.js';

export class PartialKeyChooser {
  /** Tuples this emitter sent to each candidate it chose. */
  private readonly sent = new Map<number, number>();

  constructor(private readonly view: LoadView) {}

  /** The task for one tuple whose two candidates are `a` and `b` (equal when both hashes land on one task). */
  pick(a: number, b: number): number {
    let pick = a;
    if (a !== b) {
      const wa = this.view.waitMs(a);
      const wb = this.view.waitMs(b);
      if (wa !== null && wb !== null && wa !== wb) pick = wb < wa ? b : a;
      else if ((this.sent.get(b) ?? 0) < (this.sent.get(a) ?? 0)) pick = b;
    }
    this.sent.set(pick, (this.sent.get(pick) ?? 0) + 1);
    this.view.noteSent(pick);
    return pick;
  }
}
