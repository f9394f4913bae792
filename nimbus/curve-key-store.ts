/**
 * Nimbus's CURVE key pairs, one per topology (hstorm.messaging.curve), made
 * on first request with zeromq's curveKeyPair(). They never go to ZooKeeper:
 * supervisors fetch them over the authenticated API and hand them to their
 * workers. With a directory (cluster mode) each pair is kept in a file of its
 * own, mode 0600, so a restarted nimbus hands out the same pair to the
 * workers it did not restart; without one (local mode) they live in memory.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { curveKeyPair } from 'zeromq';
import { curveKeysSchema, type CurveKeys } from '../common/security/curve-keys.js';

export class CurveKeyStore {
  private readonly pending = new Map<string, Promise<CurveKeys>>();

  constructor(private readonly dir: string | null) {}

  /** The pair of `topologyId`, made now if it has none. */
  keysFor(topologyId: string): Promise<CurveKeys> {
    let p = this.pending.get(topologyId);
    if (!p) {
      p = this.load(topologyId);
      this.pending.set(topologyId, p);
      // A failed read or write is not remembered: the next request tries again.
      p.catch(() => this.pending.delete(topologyId));
    }
    return p;
  }

  private async load(topologyId: string): Promise<CurveKeys> {
    if (!this.dir) return fresh();
    const file = join(this.dir, `${topologyId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
    const kept = await readFile(file, 'utf8').catch(() => null);
    if (kept !== null) {
      const parsed = curveKeysSchema.safeParse(safeJson(kept));
      if (parsed.success) return parsed.data;
    }
    const keys = fresh();
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFile(file, JSON.stringify(keys), { mode: 0o600 });
    return keys;
  }
}

function fresh(): CurveKeys {
  const { publicKey, secretKey } = curveKeyPair();
  return { publicKey, secretKey };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
