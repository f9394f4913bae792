/**
 * Where a persistent window's tuples live (Storm's WindowState with its
 * partitions): in the state store, in partitions of 1 000 tuples by arrival,
 * with at most `maxEventsInMemory` of them in memory — the partition being
 * written, and the ones read last (least recently used goes first). The
 * window manager holds only each tuple's arrival id and timestamp.
 *
 * What is live is not written tuple by tuple: the manager releases tuples in
 * (timestamp, arrival) order and evicts them in the same order, so at a
 * checkpoint the oldest tuple it still holds — the boundary — says which are
 * gone. Nothing is rewritten when a tuple leaves; a partition whose every
 * tuple is before the boundary is deleted at the next checkpoint. After a
 * crash (or a rollback) the window is rebuilt from the committed partitions'
 * timestamps (not their values) and the boundary: the tuples at or after it,
 * in (timestamp, arrival) order, held as the manager held them.
 *
 * Keys of the namespace: `['p', n]` the tuples of partition n, `['t', n]`
 * their timestamps, `'meta'` the next arrival id, the lowest partition kept,
 * the manager's position and the boundary.
 */
import type { Tuple } from '../tuple.js';
import { Fields } from '../fields.js';
import type { TopologyDef } from '../../common/topology-def.js';
import type { WindowPosition } from './window-manager.js';
import type { PagedState } from './paged-state.js';
import { ValueTuple } from './value-tuple.js';

/** Storm's partition size (WindowState.MAX_PARTITION_EVENTS) and least partitions in memory (MIN_PARTITIONS). */
export const PARTITION_SIZE = 1000;
const MIN_PARTITIONS = 10;
/** Partitions whose timestamps one store call reads, rebuilding. */
const READ_BATCH = 50;

/** One stored tuple: where it came from, and its values. */
type Rec = [component: string, stream: string, task: number, values: unknown[]];

interface Partition {
  recs: (Rec | null)[];
  ts: number[];
}

export interface WindowMeta {
  v: 1;
  nextId: number;
  lowPid: number;
  position: WindowPosition;
  /** [timestamp, arrival id] of the oldest tuple held, or null when none is. */
  boundary: [number, number] | null;
}

/** A window rebuilt from the store: its position, and the tuples it held in release order, split as the manager held them. */
export interface RebuiltWindow {
  position: WindowPosition;
  released: [number, number][];
  pending: [number, number][];
}

const PART = (pid: number) => ['p', pid];
const TS = (pid: number) => ['t', pid];

export class WindowTupleStore {
  private nextId = 0;
  private lowPid = 0;
  /** The partition being written (always in memory) and whether it changed since the last checkpoint. */
  private current: Partition = { recs: [], ts: [] };
  private currentDirty = false;
  /** Partitions read back, least recently used first. */
  private readonly cache = new Map<number, Partition>();
  private readonly capacity: number;
  /** Per partition, its newest [timestamp, id]: when the boundary passes it, the partition is dead. */
  private readonly newest = new Map<number, [number, number]>();
  private readonly fields = new Map<string, Fields>();

  constructor(
    private readonly state: PagedState,
    def: TopologyDef,
    maxEventsInMemory: number,
  ) {
    this.capacity = Math.max(MIN_PARTITIONS, Math.ceil(maxEventsInMemory / PARTITION_SIZE));
    for (const c of def.components) for (const s of c.streams) this.fields.set(`${c.id}\u0000${s.id}`, new Fields(s.fields));
  }

  /** Stores a tuple (in memory until the checkpoint); returns its arrival id. */
  add(t: Tuple, ts: number): number {
    const id = this.nextId++;
    const pid = Math.floor(id / PARTITION_SIZE);
    this.current.recs[id % PARTITION_SIZE] = [t.sourceComponent, t.sourceStreamId, t.sourceTask, [...t.values]];
    this.current.ts[id % PARTITION_SIZE] = ts;
    this.currentDirty = true;
    const n = this.newest.get(pid);
    if (!n || ts > n[0] || (ts === n[0] && id > n[1])) this.newest.set(pid, [ts, id]);
    if (id % PARTITION_SIZE === PARTITION_SIZE - 1) this.rollOver(pid);
    return id;
  }

  /** The tuples of `ids`, in order. */
  async read(ids: readonly number[]): Promise<Tuple[]> {
    const out: Tuple[] = [];
    for await (const t of this.iterate(ids)) out.push(t);
    return out;
  }

  /** The tuples of `ids`, in order, a partition read at a time. */
  async *iterate(ids: readonly number[]): AsyncIterableIterator<Tuple> {
    for (const id of ids) {
      const p = await this.partition(Math.floor(id / PARTITION_SIZE));
      const rec = p.recs[id % PARTITION_SIZE];
      if (!rec) throw new Error(`persistent window: tuple ${id} is not in its partition ${Math.floor(id / PARTITION_SIZE)} (the state store lost it)`);
      yield this.tuple(rec);
    }
  }

  /** Writes what the checkpoint must save — new tuples, partitions gone dead, where the window stands — and prepares it. */
  async prepare(txid: number, position: WindowPosition, boundary: [number, number] | null, eventTime: boolean): Promise<void> {
    const curPid = Math.floor(this.nextId / PARTITION_SIZE);
    if (this.currentDirty) this.writePartition(curPid, this.current);
    this.currentDirty = false;
    for (const [pid, n] of this.newest) {
      if (pid === curPid || !dead(n, boundary, position.watermark, eventTime)) continue;
      this.state.delete(PART(pid));
      this.state.delete(TS(pid));
      this.newest.delete(pid);
      this.cache.delete(pid);
    }
    let low = curPid;
    for (const pid of this.newest.keys()) if (pid < low) low = pid;
    this.lowPid = low;
    const meta: WindowMeta = { v: 1, nextId: this.nextId, lowPid: this.lowPid, position, boundary };
    this.state.put('meta', meta);
    await this.state.prepare(txid);
  }

  /** Reads the committed window back (after a restart or a rollback); null for a window never checkpointed. */
  async rebuild(eventTime: boolean): Promise<RebuiltWindow | null> {
    this.cache.clear();
    this.newest.clear();
    this.current = { recs: [], ts: [] };
    this.currentDirty = false;
    const [meta] = (await this.state.get(['meta'])) as (WindowMeta | undefined)[];
    if (meta === undefined) {
      this.nextId = 0;
      this.lowPid = 0;
      return null;
    }
    this.nextId = meta.nextId;
    this.lowPid = meta.lowPid;
    const curPid = Math.floor(meta.nextId / PARTITION_SIZE);
    const live: [number, number][] = [];
    for (let from = meta.lowPid; from <= curPid; from += READ_BATCH) {
      const pids = Array.from({ length: Math.min(READ_BATCH, curPid - from + 1) }, (_, i) => from + i);
      const stamps = (await this.state.get(pids.map(TS))) as (number[] | undefined)[];
      pids.forEach((pid, j) => {
        const ts = stamps[j];
        if (!ts) return;
        ts.forEach((t, k) => {
          const id = pid * PARTITION_SIZE + k;
          if (id >= meta.nextId || t === null || t === undefined) return;
          const n = this.newest.get(pid);
          if (!n || t > n[0] || (t === n[0] && id > n[1])) this.newest.set(pid, [t, id]);
          if (isLive(t, id, meta.boundary, meta.position.watermark, eventTime)) live.push([id, t]);
        });
      });
    }
    // The partition being written when the checkpoint was taken goes on being written.
    if (meta.nextId % PARTITION_SIZE !== 0) this.current = await this.load(curPid);
    live.sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    const wm = meta.position.watermark;
    const released = eventTime ? live.filter(([, t]) => wm !== null && t < wm) : live;
    const pending = eventTime ? live.filter(([, t]) => wm === null || t >= wm) : [];
    return { position: { ...meta.position, released: meta.position.released - released.length }, released, pending };
  }

  /** Forgets what is in memory (a rollback; rebuild reads the store again). */
  reset(): void {
    this.cache.clear();
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private rollOver(pid: number): void {
    this.writePartition(pid, this.current);
    this.remember(pid, this.current);
    this.current = { recs: [], ts: [] };
    this.currentDirty = false;
  }

  private writePartition(pid: number, p: Partition): void {
    this.state.put(PART(pid), p.recs);
    this.state.put(TS(pid), p.ts);
  }

  private async partition(pid: number): Promise<Partition> {
    if (pid === Math.floor(this.nextId / PARTITION_SIZE)) return this.current;
    const cached = this.cache.get(pid);
    if (cached) {
      this.cache.delete(pid);
      this.cache.set(pid, cached);
      return cached;
    }
    const p = await this.load(pid);
    this.remember(pid, p);
    return p;
  }

  private async load(pid: number): Promise<Partition> {
    const [recs, ts] = (await this.state.get([PART(pid), TS(pid)])) as [(Rec | null)[] | undefined, number[] | undefined];
    return { recs: recs ?? [], ts: ts ?? [] };
  }

  private remember(pid: number, p: Partition): void {
    this.cache.set(pid, p);
    while (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
  }

  private tuple([component, stream, task, values]: Rec): Tuple {
    const fields = this.fields.get(`${component}\u0000${stream}`) ?? new Fields(values.map((_, i) => `f${i}`));
    return new ValueTuple(values, fields, component, stream, task);
  }
}

/** Whether a tuple stamped `ts` with arrival `id` is still held, by the boundary and (event time) the watermark. */
function isLive(ts: number, id: number, boundary: [number, number] | null, watermark: number | null, eventTime: boolean): boolean {
  if (eventTime && (watermark === null || ts >= watermark)) return true; // waiting for the watermark
  return boundary !== null && (ts > boundary[0] || (ts === boundary[0] && id >= boundary[1]));
}

/** A partition whose newest tuple is no longer held holds nothing held. */
function dead(newest: [number, number], boundary: [number, number] | null, watermark: number | null, eventTime: boolean): boolean {
  return !isLive(newest[0], newest[1], boundary, watermark, eventTime);
}
