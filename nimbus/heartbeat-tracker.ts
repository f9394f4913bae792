/**
 * Worker liveness as nimbus sees it. Like Storm, nimbus does not trust the
 * time a worker writes (clocks differ between machines): it notes when it
 * last saw each worker's heartbeat node *change* (version or mtime) on its own
 * clock. A worker is dead when its heartbeat has not changed for
 * `nimbus.task.timeout.secs`, or when it never heartbeat within
 * `supervisor.worker.start.timeout.secs` of nimbus first seeing it assigned.
 * Nimbus keeps this only in memory: after a restart every worker starts with a
 * fresh grace period, so a restart never kills healthy workers. The same holds
 * after nimbus lost its ZooKeeper connection: while it cannot see, nobody is
 * judged, and on reconnecting every worker gets a fresh grace period (their
 * heartbeats could not reach ZooKeeper either, which says nothing about them).
 * Nimbus also counts as blind for any stretch in which it did not look: two
 * checks further apart than `blindGapMs`, or one check that took longer (a
 * ZooKeeper that hangs without dropping the connection looks like that).
 */
import { workerKey, type Assignment } from '../common/assignment.js';
import { isStateError, type ClusterState } from '../common/cluster-state.js';
import { ZkPaths } from '../common/zk-paths.js';

export type WorkerLiveness = 'starting' | 'alive' | 'dead';

interface Seen {
  /** version/mtime of the heartbeat node at its last change; null while it does not exist. */
  sig: string | null;
  changedAt: number;
  everBeat: boolean;
}

export interface HeartbeatTimeouts {
  taskTimeoutMs: number;
  startTimeoutMs: number;
  /** A gap between checks (or a check) longer than this counts as blindness. Default taskTimeoutMs / 2. */
  blindGapMs?: number;
}

export class HeartbeatTracker {
  private readonly seen = new Map<string, Seen>();
  /** Set while the store is unreachable: no worker is declared dead. */
  private blindSince: number | null = null;
  /** When the last check finished; null before the first. */
  private lastCheckEnd: number | null = null;
  private readonly blindGapMs: number;

  constructor(
    private readonly state: ClusterState,
    private readonly timeouts: HeartbeatTimeouts,
    /** Reads the time a check ends (tests inject one); `now` of check() is when it starts. */
    private readonly clock: () => number = Date.now,
  ) {
    this.blindGapMs = timeouts.blindGapMs ?? timeouts.taskTimeoutMs / 2;
  }

  private static key(topologyId: string, w: { supervisorId: string; port: number }): string {
    return `${topologyId}|${workerKey(w)}`;
  }

  /**
   * Looks at every assigned worker's heartbeat node (a stat, not a read) and
   * returns, per topology, the workers now considered dead.
   */
  async check(assignments: Iterable<Assignment>, skip: (topologyId: string) => boolean, now = Date.now()): Promise<Map<string, Set<string>>> {
    // Not looking for a while is blindness too: what was not watched is not held against anyone.
    if (this.lastCheckEnd !== null && now - this.lastCheckEnd > this.blindGapMs) {
      this.blind(this.lastCheckEnd);
      this.regainSight(now);
    }
    let dead: Map<string, Set<string>>;
    try {
      dead = await this.look(assignments, skip, now);
    } finally {
      this.lastCheckEnd = this.clock();
    }
    const end = this.lastCheckEnd;
    if (end - now <= this.blindGapMs) return dead;
    // A check that hung (ZooKeeper frozen, say) saw nothing reliable about the time it spent: no verdict.
    this.blind(now);
    this.regainSight(end);
    return new Map();
  }

  private async look(assignments: Iterable<Assignment>, skip: (topologyId: string) => boolean, now: number): Promise<Map<string, Set<string>>> {
    const dead = new Map<string, Set<string>>();
    const live = new Set<string>();
    for (const a of assignments) {
      if (skip(a.topologyId)) continue;
      for (const w of a.workers) {
        const key = HeartbeatTracker.key(a.topologyId, w);
        live.add(key);
        let sig: string | null = null;
        try {
          const stat = await this.state.exists(ZkPaths.workerbeat(a.topologyId, w.supervisorId, w.port));
          if (stat) sig = `${stat.version}/${stat.mtime}/${stat.ctime}`;
        } catch (err) {
          if (!isStateError(err, 'NO_NODE')) throw err;
        }
        const prev = this.seen.get(key);
        if (!prev) {
          this.seen.set(key, { sig, changedAt: now, everBeat: sig !== null });
          continue;
        }
        if (sig !== prev.sig) {
          prev.sig = sig;
          prev.changedAt = now;
          if (sig !== null) prev.everBeat = true;
          continue;
        }
        if (this.blindSince === null && this.livenessOf(prev, now) === 'dead') {
          let set = dead.get(a.topologyId);
          if (!set) dead.set(a.topologyId, (set = new Set()));
          set.add(workerKey(w));
        }
      }
    }
    for (const key of this.seen.keys()) if (!live.has(key)) this.seen.delete(key);
    return dead;
  }

  private livenessOf(s: Seen, now: number): WorkerLiveness {
    const age = now - s.changedAt;
    if (!s.everBeat) return age > this.timeouts.startTimeoutMs ? 'dead' : 'starting';
    return age > this.timeouts.taskTimeoutMs ? 'dead' : 'alive';
  }

  /** The store became unreachable: what nimbus sees from now on says nothing about the workers. */
  blind(now = Date.now()): void {
    this.blindSince ??= now;
  }

  /** The store is back: every worker gets a fresh grace period from `now`, as after a nimbus restart. */
  regainSight(now = Date.now()): void {
    if (this.blindSince === null) return;
    this.blindSince = null;
    for (const s of this.seen.values()) s.changedAt = Math.max(s.changedAt, now);
  }

  /** What `describe` shows for a worker; 'starting' when nimbus has not looked yet. */
  liveness(topologyId: string, w: { supervisorId: string; port: number }, now = Date.now()): WorkerLiveness {
    const s = this.seen.get(HeartbeatTracker.key(topologyId, w));
    return s ? this.livenessOf(s, now) : 'starting';
  }

  /** Forgets a worker so that, if it is assigned again, it gets a fresh start timeout. */
  forget(topologyId: string, w: { supervisorId: string; port: number }): void {
    this.seen.delete(HeartbeatTracker.key(topologyId, w));
  }
}
