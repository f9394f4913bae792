/**
 * A stateful component's state, summed over its tasks' heartbeat sections
 * (StateMetrics): what describe, the Storm UI API, the web UI and `hstorm
 * local` show per stateful bolt and for the checkpoint spout.
 */
import { mergeLatency } from './histogram.js';
import type { LatencyStats, StateMetrics } from './storm-base.js';

/**
 * The task sections' fields summed over tasks (commits, recoveries, failures, heldAcks, corruptEntries, keys), but for
 * these: the provider (null before a task reported), the newest transaction every reporting task has committed (the
 * lowest task's; null before one), the checkpoint durations merged over tasks (null before one), and the tasks that
 * reported a state section.
 */
export interface ComponentStateStats extends Omit<StateMetrics, 'provider' | 'checkpointMs' | 'checkpointHist' | 'checkpointSum'> {
  provider: StateMetrics['provider'] | null;
  checkpointMs: LatencyStats | null;
  tasks: number;
}

/** The component's state before any task reported (the definition says it is stateful). */
export function emptyStateStats(role: ComponentStateStats['role']): ComponentStateStats {
  return { role, provider: null, lastCommittedTxid: null, commits: 0, checkpointMs: null, keys: null, recoveries: 0, failures: 0, heldAcks: 0, corruptEntries: 0, phase: null, tasks: 0 };
}

export function stateRollup(role: ComponentStateStats['role'], sections: readonly StateMetrics[]): ComponentStateStats {
  const s = emptyStateStats(role);
  if (sections.length === 0) return s;
  s.tasks = sections.length;
  s.provider = sections[0]!.provider;
  let lowest: number | null = null;
  let allCommitted = true;
  for (const m of sections) {
    s.commits += m.commits;
    s.recoveries += m.recoveries;
    s.failures += m.failures;
    s.heldAcks += m.heldAcks;
    s.corruptEntries += m.corruptEntries;
    if (m.keys !== null) s.keys = (s.keys ?? 0) + m.keys;
    if (m.phase !== null) s.phase = m.phase;
    if (m.lastCommittedTxid === null) allCommitted = false;
    else if (lowest === null || m.lastCommittedTxid < lowest) lowest = m.lastCommittedTxid;
  }
  s.lastCommittedTxid = allCommitted ? lowest : null;
  const h = mergeLatency(sections.map((m) => ({ stats: m.checkpointMs, hist: m.checkpointHist, sum: m.checkpointSum })));
  s.checkpointMs = h.count > 0 ? h.stats() : null;
  return s;
}
