/**
 * What `npm run bench -- scale` measures a point with, apart from nimbus's
 * own health route: a process's CPU time (from /proc, so an average over a
 * window is exact), the bytes ZooKeeper's transaction log files hold on disk
 * (allocated blocks: ZooKeeper pads its log files sparsely, so the apparent
 * size jumps by preAllocSize while the blocks grow with what is written),
 * ZooKeeper's own counters (`mntr`), a write probe (a client of its own
 * timing one small write every 50 ms, the latency a worker would see), and
 * the disk guard that refuses to start, or stops a point, when the disk is
 * nearly full.
 */
import { readdirSync, readFileSync, statSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterState } from '../../common/cluster-state.js';
import { fourLetterWord } from '../../common/zookeeper-server.js';

/** CPU ms (user + system) a process has used so far, or null when it is gone (Linux /proc). */
export function procCpuMs(pid: number): number | null {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return null;
  }
}

/** Resident memory of a process in bytes, or null. */
export function procRssBytes(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Bytes allocated on disk by ZooKeeper's transaction log files (`<dataDir>/version-2/log.*`), and by its snapshots. */
export function zkDiskBytes(dataDir: string): { log: number; snapshots: number } {
  const dir = join(dataDir, 'version-2');
  let log = 0;
  let snapshots = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return { log, snapshots };
  }
  for (const n of names) {
    try {
      const bytes = statSync(join(dir, n)).blocks * 512;
      if (n.startsWith('log.')) log += bytes;
      else if (n.startsWith('snapshot.')) snapshots += bytes;
    } catch {
      // purged between the listing and the stat
    }
  }
  return { log, snapshots };
}

/** ZooKeeper's `mntr` as numbers (what does not parse is left out). */
export async function zkMonitor(host: string, port: number): Promise<Map<string, number>> {
  const text = await fourLetterWord(host, port, 'mntr', 5000);
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [k, v] = line.split('\t');
    if (k && v !== undefined && v.trim() !== '' && Number.isFinite(Number(v))) out.set(k, Number(v));
  }
  return out;
}

export interface DiskState {
  freeBytes: number;
  totalBytes: number;
}

export function diskState(dir: string): DiskState {
  const s = statfsSync(dir);
  return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}

/** The least free space a point may start with (and the floor below which a running point stops). */
export const DISK_MIN_FREE_BYTES = 5 * 2 ** 30;
export const DISK_ABORT_FREE_BYTES = 2 * 2 ** 30;

/** Why the disk under `dir` is too full to start, or null: below 5 GiB or 10 % free. */
export function diskTooFull(dir: string): string | null {
  const d = diskState(dir);
  const gib = (b: number): string => (b / 2 ** 30).toFixed(1);
  if (d.freeBytes < DISK_MIN_FREE_BYTES || d.freeBytes < 0.1 * d.totalBytes) {
    return `only ${gib(d.freeBytes)} GiB of ${gib(d.totalBytes)} GiB free under ${dir}; the scale benchmark needs 5 GiB and 10 % free (ZooKeeper's transaction log grows by hundreds of MB a minute at the larger points)`;
  }
  return null;
}

/** Times one small write to its own node every `everyMs` on its own session: ZooKeeper's write latency as a worker sees it. */
export class WriteProbe {
  readonly latencies: number[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight = false;
  private n = 0;

  constructor(
    private readonly state: ClusterState,
    private readonly path: string,
    private readonly everyMs = 50,
  ) {}

  async start(): Promise<void> {
    await this.state.create(this.path, Buffer.alloc(1500, 1), { parents: true }).catch(() => undefined);
    this.timer = setInterval(() => {
      if (this.inFlight) return;
      this.inFlight = true;
      const t0 = performance.now();
      const data = Buffer.alloc(1500, this.n++ & 0xff);
      this.state
        .set(this.path, data)
        .then(() => this.latencies.push(performance.now() - t0))
        .catch(() => undefined)
        .finally(() => (this.inFlight = false));
    }, this.everyMs);
  }

  /** Drops what was measured so far (the start of a window). */
  reset(): void {
    this.latencies.length = 0;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/** The q-quantile of unsorted values (nearest rank); 0 for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
