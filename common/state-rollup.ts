/**
 * A stateful component's state, summed over its tasks' heartbeat sections
 * (StateMetrics): what describe, the Storm UI API, the web UI and `hstorm
 * local` show per stateful bolt and for the checkpoint spout.
 */
import { mergeLatency } from './histogram.js';
import type { LatencyStats, StateMetrics } from './storm-base.js';

export interface ComponentStateStats {
  role: 'bolt' | 'checkpoint';
  provider: 'memory' | 'redis' | null;
  /** The newest transaction every reporting task has committed (the lowest task's); null before one. */
  lastCommittedTxid: number | null;
  /** Transactions committed, summed over tasks. */
  commits: number;
  /** A bolt's own part of a checkpoint (prepare + commit), or the spout's whole checkpoint; merged over tasks. */
  checkpointMs: LatencyStats | null;
  /** Keys over all tasks' states; null for the checkpoint spout, or before a task loaded its state. */
  keys: number | null;
  recoveries: number;
  failures: number;
  /** Inputs acked by the bolt, waiting for the commit that includes them. */
  heldAcks: number;
  corruptEntries: number;
  /** The checkpoint spout's transaction ("COMMITTED 41", "recovering: ROLLBACK 42"); null for a bolt. */
  phase: string | null;
  /** Tasks that reported a state section. */
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
