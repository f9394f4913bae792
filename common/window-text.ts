/**
 * A windowed bolt's window in words, the same wherever it is shown: error
 * messages at submit, the bolt's heartbeat section, describe, the UIs.
 */
import type { WindowDef, WindowSizeDef } from './topology-def.js';

/** "250 ms", "5 s", "1.5 s", "2 min", "1 h". */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000 || ms % 60_000 !== 0) return `${+(ms / 1000).toFixed(3)} s`;
  return ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${ms / 60_000} min`;
}

function size(s: WindowSizeDef): string {
  return s.unit === 'count' ? `${s.value} tuple${s.value === 1 ? '' : 's'}` : formatMs(s.value);
}

/** "tumbling 5 tuples", "sliding 30 s every 5 s, event time (ts), lag 2 s, late → late". */
export function describeWindow(def: WindowDef): string {
  const same = def.length.unit === def.slide.unit && def.length.value === def.slide.value;
  const shape = same ? `tumbling ${size(def.length)}` : `sliding ${size(def.length)} every ${size(def.slide)}`;
  if (!def.eventTime) return shape;
  const parts = [shape, `event time (${def.timestampField ?? 'extractor'})`];
  if (def.lagMs > 0) parts.push(`lag ${formatMs(def.lagMs)}`);
  if (def.lateStream) parts.push(`late → ${def.lateStream}`);
  return parts.join(', ');
}
