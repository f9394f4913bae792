/**
 * The boolean decision window of the adaptive split (H-Storm §2.2.2): γ, the
 * share of tuples for the GPU stream, quantised to the closest fraction k/n
 * with n ≤ the max window, the k GPU sends spread as evenly as possible over
 * the n slots. A spout walks the window cyclically, so deciding costs one
 * array read instead of a random draw, and the realised share is exact over
 * every n tuples (a random draw only converges on average).
 */

/** Slack for float comparisons of fractions (γ = 0.8 must pick 4/5, not 8/10 or 16/20). */
const EPS = 1e-12;

export interface Fraction {
  k: number;
  n: number;
}

/** The fraction k/n closest to γ with 1 ≤ n ≤ maxWindow; among equally close ones the smallest n. */
export function closestFraction(gamma: number, maxWindow: number): Fraction {
  checkArgs(gamma, maxWindow);
  const g = Math.min(1, Math.max(0, gamma));
  let best: Fraction = { k: Math.round(g), n: 1 };
  let bestErr = Math.abs(g - best.k);
  for (let n = 2; n <= maxWindow && bestErr > EPS; n++) {
    const k = Math.round(g * n);
    const err = Math.abs(g - k / n);
    if (err < bestErr - EPS) {
      best = { k, n };
      bestErr = err;
    }
  }
  return best;
}

/**
 * γ as a window of n decisions, true = GPU stream. Slot i goes to the GPU when
 * ⌈(i+1)k/n⌉ > ⌈ik/n⌉ (Bresenham): runs of the majority kind differ in length
 * by at most one, and the window opens with a GPU send
 * (γ = 0.8 → [gpu, gpu, gpu, gpu, cpu]; γ = 0.2 → [gpu, cpu, cpu, cpu, cpu]).
 */
export function decisionWindow(gamma: number, maxWindow: number): boolean[] {
  const { k, n } = closestFraction(gamma, maxWindow);
  const out = new Array<boolean>(n);
  for (let i = 0; i < n; i++) out[i] = Math.ceil(((i + 1) * k) / n) > Math.ceil((i * k) / n);
  return out;
}

function checkArgs(gamma: number, maxWindow: number): void {
  if (!Number.isFinite(gamma)) throw new RangeError(`γ must be a number in [0, 1], got ${gamma}`);
  if (!Number.isInteger(maxWindow) || maxWindow < 1) throw new RangeError(`the max decision window must be an integer ≥ 1, got ${maxWindow}`);
}
