/**
 * How deep a config value may nest. Configs are read by recursive code on
 * every side — JSON.stringify when nimbus stores a topology, zod when a key is
 * checked, the views that show them — and a value nested thousands deep
 * overflows the stack in one of them (a 500 where a 400 was due). Storm's
 * configs and Flux's are a few levels deep; 64 leaves room for any real one.
 */
export const MAX_CONFIG_DEPTH = 64;

/**
 * Levels of lists and maps in `value` (a scalar is 0, `[1]` is 1), counted
 * without recursion, stopping as soon as the count passes `limit`.
 */
export function nestingDepth(value: unknown, limit = MAX_CONFIG_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, above] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    const depth = above + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) stack.push([child, depth]);
  }
  return deepest;
}
