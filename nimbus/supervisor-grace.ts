/**
 * A supervisor whose node vanished is kept in nimbus's view for a short grace
 * period before its workers are moved. A supervisor restarted on its data dir
 * replaces the node its previous process left (delete, then create), and
 * after a ZooKeeper session expiry a supervisor re-creates its node: in both
 * cases nimbus may read the children in between, and without a grace it would
 * move every executor of a node that is back a moment later, restarting
 * workers the supervisor is about to adopt. A node that stays away longer
 * than the grace is gone, as before.
 */
import type { SupervisorInfo } from '../common/resources.js';

export class SupervisorGrace {
  private readonly lastSeen = new Map<string, { info: SupervisorInfo; goneSince: number | null }>();

  constructor(private readonly graceMs: number) {}

  /** `current` plus every supervisor that vanished less than the grace ago (as last seen). */
  apply(current: ReadonlyMap<string, SupervisorInfo>, now: number): Map<string, SupervisorInfo> {
    const out = new Map(current);
    for (const [id, info] of current) this.lastSeen.set(id, { info, goneSince: null });
    for (const [id, seen] of this.lastSeen) {
      if (current.has(id)) continue;
      seen.goneSince ??= now;
      if (now - seen.goneSince < this.graceMs) out.set(id, seen.info);
      else this.lastSeen.delete(id);
    }
    return out;
  }

  /** When the earliest grace now running ends (a round then must look again), or null when none runs. */
  nextExpiry(): number | null {
    let next: number | null = null;
    for (const seen of this.lastSeen.values()) {
      if (seen.goneSince === null) continue;
      const end = seen.goneSince + this.graceMs;
      if (next === null || end < next) next = end;
    }
    return next;
  }
}
