/**
 * Worker liveness as nimbus sees it, kept in memory and judged without a
 * single store request. Two kinds of news say a worker lives:
 *
 * - its supervisor's report (common/worker-beats-report.ts), one message per
 *   supervisor every `worker.heartbeat.frequency.secs`, carrying the age of
 *   each worker's local heartbeat: nimbus places the beat at its own receive
 *   time minus that age, so no two machines' clocks are compared (Storm does
 *   not trust worker clocks either);
 * - its metrics record in ZooKeeper changing (version or times), as the
 *   heartbeat sampler sees it on its own clock.
 *
 * A worker is dead when no news came for `nimbus.task.timeout.secs`, or when
 * none ever came within `nimbus.task.launch.secs` of nimbus first seeing it
 * assigned. A supervisor that does not report (one that cannot reach nimbus's
 * HTTP API, an older one) leaves its workers to be judged by their records
 * alone, which change only every `topology.stats.report.secs`: they get that
 * period on top of the timeout, so a supervisor cut off from nimbus but not
 * from ZooKeeper moves nothing.
 *
 * After a nimbus restart every worker starts with a fresh grace period, so a
 * restart never kills healthy workers. The same holds after nimbus lost its
 * ZooKeeper session: while it cannot see, nobody is judged, and on
 * reconnecting every worker gets a fresh grace period. Nimbus also counts as
 * blind for any stretch in which it did not look: two checks further apart
 * than `blindGapMs` (a stalled event loop: the reports that arrived meanwhile
 * wait in its sockets, unread).
 */
import { workerKey, type Assignment } from '../common/assignment.js';
import type { WorkerBeatsReport } from '../common/worker-beats-report.js';

export type WorkerLiveness = 'starting' | 'alive' | 'dead';

interface Seen {
  /** Nimbus-clock time of the latest news of the worker; null before any. */
  newsAt: number | null;
  /** When nimbus first looked for it (the launch timeout runs from here). */
  since: number;
  /** version/mtime/ctime of its metrics record when last looked at; undefined: never looked; null: no record. */
  recordSig?: string | null;
  /** What its supervisor last reported (describe). */
  pid?: number;
  epoch?: number | null;
}

export interface HeartbeatTimeouts {
  taskTimeoutMs: number;
  startTimeoutMs: number;
  /** A gap between checks longer than this counts as blindness. Default taskTimeoutMs / 2. */
  blindGapMs?: number;
}

/** What a check needs to know of each topology. */
export interface CheckOptions {
  /** Topologies not judged (killed). */
  skip: (topologyId: string) => boolean;
  /** `topology.stats.report.secs` of the topology in ms: the extra time a worker judged by its record alone gets. */
  recordPeriodMs: (topologyId: string) => number;
}

/** One metrics record as the sampler saw it. */
export interface RecordSeen {
  supervisorId: string;
  port: number;
  /** version/mtime/ctime of its node. */
  sig: string;
}

export class HeartbeatTracker {
  private readonly seen = new Map<string, Seen>();
  /** Supervisor id → when its last report arrived (nimbus clock). */
  private readonly reporters = new Map<string, number>();
  /** Workers assigned at the last check: one not among them is newly assigned and starts afresh. */
  private assignedBefore = new Set<string>();
  /** Topology → its record period, as of the last check (for `liveness` between checks). */
  private readonly recordPeriods = new Map<string, number>();
  /** Set while the store is unreachable: no worker is declared dead. */
  private blindSince: number | null = null;
  /** When the last check ran; null before the first. */
  private lastCheck: number | null = null;
  private readonly blindGapMs: number;
  /** Reports taken, worker beats in them, reports refused as malformed (by the HTTP route). */
  readonly counts = { reports: 0, beats: 0, refused: 0 };

  constructor(private readonly timeouts: HeartbeatTimeouts) {
    this.blindGapMs = timeouts.blindGapMs ?? timeouts.taskTimeoutMs / 2;
  }

  private static key(topologyId: string, w: { supervisorId: string; port: number }): string {
    return `${topologyId}|${workerKey(w)}`;
  }

  /** Takes a supervisor's report: each worker in it beat `ageMs` before `now`. */
  report(r: WorkerBeatsReport, now = Date.now()): void {
    this.counts.reports++;
    this.reporters.set(r.supervisorId, now);
    for (const w of r.workers) {
      this.counts.beats++;
      const s = this.entry(HeartbeatTracker.key(w.topologyId, { supervisorId: r.supervisorId, port: w.port }), now);
      s.newsAt = Math.max(s.newsAt ?? -Infinity, now - w.ageMs);
      s.pid = w.pid;
      s.epoch = w.epoch;
    }
  }

  /**
   * Takes what the sampler saw of a topology's metrics records: a record whose
   * node changed since the last look is news of its worker. A record seen for
   * the first time is news too, as of now: after a restart nimbus cannot tell
   * how old it is, so it gives the worker a full grace period rather than none.
   */
  noteRecords(topologyId: string, records: Iterable<RecordSeen>, now = Date.now()): void {
    for (const r of records) {
      const s = this.entry(HeartbeatTracker.key(topologyId, r), now);
      if (s.recordSig === r.sig) continue;
      s.recordSig = r.sig;
      s.newsAt = Math.max(s.newsAt ?? -Infinity, now);
    }
  }

  /** Per topology, the assigned workers now considered dead. In memory: no store request. */
  check(assignments: Iterable<Assignment>, opts: CheckOptions, now = Date.now()): Map<string, Set<string>> {
    // Not looking for a while is blindness too: what was not watched is not held against anyone.
    if (this.lastCheck !== null && now - this.lastCheck > this.blindGapMs) {
      this.blind(this.lastCheck);
      this.regainSight(now);
    }
    this.lastCheck = now;
    const dead = new Map<string, Set<string>>();
    const assigned = new Set<string>();
    this.recordPeriods.clear();
    for (const a of assignments) {
      if (opts.skip(a.topologyId)) continue;
      this.recordPeriods.set(a.topologyId, opts.recordPeriodMs(a.topologyId));
      for (const w of a.workers) {
        const key = HeartbeatTracker.key(a.topologyId, w);
        assigned.add(key);
        // Newly assigned (again): what was heard of an earlier worker on this slot says nothing of the one to start.
        if (!this.assignedBefore.has(key)) this.seen.delete(key);
        const s = this.entry(key, now);
        if (this.blindSince === null && this.livenessOf(a.topologyId, w.supervisorId, s, now) === 'dead') {
          let set = dead.get(a.topologyId);
          if (!set) dead.set(a.topologyId, (set = new Set()));
          set.add(workerKey(w));
        }
      }
    }
    for (const key of this.seen.keys()) if (!assigned.has(key)) this.seen.delete(key);
    this.assignedBefore = assigned;
    for (const [id, at] of this.reporters) if (now - at > 3 * this.timeouts.taskTimeoutMs) this.reporters.delete(id);
    return dead;
  }

  private entry(key: string, now: number): Seen {
    let s = this.seen.get(key);
    if (!s) this.seen.set(key, (s = { newsAt: null, since: now }));
    return s;
  }

  /** Whether a supervisor's reports are what its workers are judged by: it sent one within the task timeout. */
  private reporting(supervisorId: string, now: number): boolean {
    const at = this.reporters.get(supervisorId);
    return at !== undefined && now - at <= this.timeouts.taskTimeoutMs;
  }

  private livenessOf(topologyId: string, supervisorId: string, s: Seen, now: number): WorkerLiveness {
    // While its supervisor reports, a worker is judged as of the supervisor's latest report, not as of now: a
    // supervisor that just died (its reports stop) must not take its workers with it in the moments before it
    // counts as silent; from then on they are judged by their records, with the record period on top.
    const reportedAt = this.reporting(supervisorId, now) ? this.reporters.get(supervisorId)! : null;
    const asOf = reportedAt === null ? now : Math.min(now, reportedAt);
    const extra = reportedAt === null ? (this.recordPeriods.get(topologyId) ?? 0) : 0;
    if (s.newsAt === null) return asOf - s.since > this.timeouts.startTimeoutMs + extra ? 'dead' : 'starting';
    return asOf - s.newsAt > this.timeouts.taskTimeoutMs + extra ? 'dead' : 'alive';
  }

  /** The store became unreachable: what nimbus sees from now on says nothing about the workers. */
  blind(now = Date.now()): void {
    this.blindSince ??= now;
  }

  /** The store is back: every worker gets a fresh grace period from `now`, as after a nimbus restart. */
  regainSight(now = Date.now()): void {
    if (this.blindSince === null) return;
    this.blindSince = null;
    for (const s of this.seen.values()) {
      if (s.newsAt !== null) s.newsAt = Math.max(s.newsAt, now);
      s.since = Math.max(s.since, now);
    }
  }

  /** What `describe` shows for a worker; 'starting' when nimbus has not looked yet. */
  liveness(topologyId: string, w: { supervisorId: string; port: number }, now = Date.now()): WorkerLiveness {
    const s = this.seen.get(HeartbeatTracker.key(topologyId, w));
    return s ? this.livenessOf(topologyId, w.supervisorId, s, now) : 'starting';
  }

  /** What it holds: workers it has news of and supervisors whose last report it remembers (bounded by the cluster; soak tests). */
  sizes(): { workers: number; supervisors: number } {
    return { workers: this.seen.size, supervisors: this.reporters.size };
  }

  /** Supervisors whose reports arrived within the task timeout. */
  reportingSupervisors(now = Date.now()): number {
    let n = 0;
    for (const id of this.reporters.keys()) if (this.reporting(id, now)) n++;
    return n;
  }
}
