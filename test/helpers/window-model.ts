/**
 * Windows as the definitions in docs/windowing.md give them, written without
 * the window manager's data structures: the reference its tests compare
 * against (test/unit/sdk/window-manager.test.ts, test/integration/windows.test.ts).
 */
import type { WindowSizeDef } from '../../common/topology-def.js';

export interface ModelSpec {
  length: WindowSizeDef;
  slide: WindowSizeDef;
}

/**
 * The windows evaluated for `items` in release order (stamp order; arrival
 * order in processing time), every window ending at or before `finalWm`
 * (count slides: every `slide`-th item).
 */
export function modelWindows<E extends { ts: number }>(spec: ModelSpec, items: readonly E[], finalWm: number): E[][] {
  const { length, slide } = spec;
  const out: E[][] = [];
  if (slide.unit === 'count') {
    for (let p = slide.value; p <= items.length; p += slide.value) {
      const t = items[p - 1]!.ts;
      out.push(length.unit === 'count' ? items.slice(Math.max(0, p - length.value), p) : items.slice(0, p).filter((e) => e.ts > t - length.value));
    }
    return out;
  }
  if (items.length === 0) return out;
  let prevHi = -1;
  const first = Math.floor(items[0]!.ts / slide.value) * slide.value + slide.value;
  for (let end = first; end <= finalWm; end += slide.value) {
    const before = items.filter((e) => e.ts < end);
    if (length.unit === 'count') {
      // A count-length window with nothing new is not evaluated again.
      if (before.length === 0 || before.length <= prevHi) continue;
      prevHi = before.length;
      out.push(before.slice(-length.value));
    } else {
      const w = before.filter((e) => e.ts >= end - length.value);
      if (w.length > 0) out.push(w);
    }
  }
  return out;
}
