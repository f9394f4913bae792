/**
 * Who sent a frame, in three header words (frame-layout.ts): the sender's
 * assignment epoch, and 32-bit tags of its topology id and its worker key
 * (supervisor id and port, common/assignment.ts workerKey). A receiver fences
 * on them (worker/fencing/epoch-fence.ts): a frame of another topology, or one
 * from a worker on an older assignment that no longer holds a slot in it — a
 * worker stranded by a network partition — is dropped and counted. The tags
 * are hashes, not the strings, to keep the header fixed-size; two of a
 * cluster's workers colliding only costs that fence its exception for a
 * worker still assigned, never a frame that should be accepted.
 */
export interface FrameStamp {
  /** The sender's assignment epoch (nimbus bumps it at every new assignment of the topology). */
  epoch: number;
  /** tagOf(topology id). */
  topology: number;
  /** tagOf(worker key). */
  worker: number;
}

/** What tools and tests send unless they say otherwise: epoch 0, no topology's tag (a worker fences such a frame as foreign). */
export const UNSTAMPED: Readonly<FrameStamp> = Object.freeze({ epoch: 0, topology: 0, worker: 0 });

/** FNV-1a, 32 bits, over the string's UTF-8 bytes: a stable tag for a topology id or worker key. */
export function tagOf(s: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(s, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The stamp of a worker of `topologyId` keyed `workerKey`, at `epoch`. */
export function stampOf(topologyId: string, workerKey: string, epoch: number): FrameStamp {
  return { epoch, topology: tagOf(topologyId), worker: tagOf(workerKey) };
}
