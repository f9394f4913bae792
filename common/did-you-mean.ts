/**
 * "Did you mean …?" for a misspelt name: the closest of the names that exist,
 * by edit distance, when it is close enough to be a likely typo. Config keys
 * and the keys and ids of a Flux file use it.
 */

/** The candidate nearest to `name`, or undefined when none is within `maxDistance` edits. Ties go to the first. */
export function closestName(name: string, candidates: Iterable<string>, maxDistance = 3): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return bestD <= maxDistance ? best : undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions each cost 1. */
export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}
