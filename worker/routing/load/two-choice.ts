/**
 * Power of two choices (as in DHRM's placement by two random choices ranked
 * by estimated wait): per tuple, draw two distinct target tasks at random and
 * send to the one whose tuple would be done sooner. Comparing only two keeps
 * the cost constant and, unlike "always the least loaded", does not send a
 * burst to one task on a stale figure. When either figure is unknown the
 * first draw wins, which is plain random routing.
 */
import type { LoadView } from './task-load.js';

export function pickTwoChoice(tasks: readonly number[], view: LoadView, random: () => number): number {
  const n = tasks.length;
  if (n === 1) return tasks[0]!;
  const i = Math.floor(random() * n);
  let j = Math.floor(random() * (n - 1));
  if (j >= i) j++;
  const a = tasks[i]!;
  const b = tasks[j]!;
  const wa = view.waitMs(a);
  const wb = view.waitMs(b);
  const pick = wa !== null && wb !== null && wb < wa ? b : a;
  view.noteSent(pick);
  return pick;
}
