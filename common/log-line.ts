/**
 * Reading the lines of a worker's pino log file, shared by the local console
 * (cli/worker-log-tail.ts), `hstorm logs` (cli/topology-logs.ts) and the
 * supervisor's last-error scan (supervisor/worker-log-error.ts). A line that
 * is not a JSON object is Node's own output (a crash, a native module's
 * message): callers show it as it is.
 */

/** The line as a JSON object, or null when it is not one. */
export function parseJsonLogLine(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The level of a line that is not pino JSON: a process's own stderr. Node's warnings (`(node:12) Warning: …`,
 * `[DEP0040] DeprecationWarning: …`) and native libraries' notices (Dawn's `Warning: … is deprecated`) are warnings;
 * anything else — an uncaught error, its stack, a fatal message — counts as an error, so a crash is never played down.
 */
export function rawLineLevel(line: string): 40 | 50 {
  return RAW_WARNING.test(line.trim()) ? 40 : 50;
}

const RAW_WARNING = /^(\(node:\d+\)\s+)?(\[[A-Z]+\d+\]\s+)?(\w*Warning\b|warning:)|\bis deprecated\b/i;

/** The first `frames` lines of a logged error's stack (its message when it has no stack); null when `err` has neither. */
export function errorStackHead(err: unknown, frames: number): string[] | null {
  if (!err || typeof err !== 'object') return null;
  const { stack, message } = err as { stack?: unknown; message?: unknown };
  if (typeof stack === 'string') return stack.split('\n').slice(0, frames);
  return typeof message === 'string' ? [message] : null;
}
