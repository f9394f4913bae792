/**
 * CPU time (user + system, ms) of this process's child processes — the
 * workers a LocalCluster launched — read from /proc. CPU per tuple moves much
 * less than tuples/s when other work shares the machine, so benchmarks report
 * both. Linux only: elsewhere `sample` returns null.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** One reading: child pid → CPU ms so far. */
export function sampleChildCpu(): Map<number, number> | null {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const out = new Map<number, number>();
  for (const t of tasks) {
    let kids: number[] = [];
    try {
      kids = readFileSync(`/proc/self/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      continue;
    }
    for (const pid of kids) {
      try {
        // Fields after the command name: utime and stime are the 12th and 13th, in clock ticks (100 per second on Linux).
        const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        out.set(pid, (Number(f[11]) + Number(f[12])) * 10);
      } catch {
        // exited between the two reads
      }
    }
  }
  return out;
}

/** CPU µs per unit of work of each child between two readings, busiest first. */
export function cpuPerUnit(from: Map<number, number> | null, to: Map<number, number> | null, units: number): number[] | null {
  if (!from || !to || units <= 0) return null;
  const per: number[] = [];
  for (const [pid, ms] of to) {
    const before = from.get(pid);
    if (before !== undefined) per.push(Math.round(((ms - before) * 1000 * 100) / units) / 100);
  }
  return per.sort((a, b) => b - a);
}
