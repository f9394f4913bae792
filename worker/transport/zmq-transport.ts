/**
 * Sockets and frames between worker processes: one ZeroMQ PULL socket bound
 * on the worker's slot port, one PUSH socket per peer worker. Tuples and ack
 * messages for a peer are gathered into a batch (batch-builder.ts), sealed at
 * `topology.transfer.batch.size` or after `topology.batch.flush.interval.millis`
 * and encoded into frames (frame-encoder.ts) no bigger than the peer takes;
 * frames that arrive are read (frame-reader.ts) and handed to the worker whole.
 *
 * Every frame is stamped with this worker's assignment epoch and topology
 * (frame-stamp.ts) so that receivers can fence a stranded sender; sockets
 * heartbeat and redial a link whose packets vanish (link-liveness.ts).
 *
 * Backpressure: each PUSH socket has a small high-water mark, so when a peer
 * stops reading, `send` waits, batches queue here, `pendingTuples` grows and
 * the worker holds back the executors that feed this peer. The receive loop
 * waits when the worker's handler asks it to (a task full: batch-receiver.ts
 * says when that is safe). Frames are read with their values deferred: the
 * handler unpacks them unless it parks the whole frame, and a frame whose
 * values do not unpack is dropped like any other malformed frame.
 */
import { NO_TREE_START } from './frame-tree-time.js';
import { CodecError } from '../../common/errors.js';
import * as zmq from 'zeromq';
import { BatchBuilder } from './batch-builder.js';
import { encodeFrame } from './frame-encoder.js';
import { readFrame, type Frame } from './frame-reader.js';
import type { WireTuple } from './wire-types.js';
import { writeHalvesOf } from '../acking/ack-ids.js';
import type { AckKind } from '../acking/ack-messages.js';
import type { AnchorIds } from '../executor/runtime-tuple.js';
import type { Logger } from '../../common/logger.js';
import { RateLimitedLog } from '../../common/logger.js';
import type { CurveKeys } from '../../common/security/curve-keys.js';
import { admitCurveKeys, curveClientOptions, curveServerOptions } from './curve.js';
import { LINK_LIVENESS, type LinkLiveness } from './link-liveness.js';
import { UNSTAMPED, type FrameStamp } from './frame-stamp.js';

export interface PeerAddress {
  host: string;
  port: number;
}

export interface TransportOptions {
  port: number;
  /** Address to listen on (an IP literal, `*` for every interface); default 127.0.0.1. */
  bindHost?: string;
  /** The topology's CURVE keys (curve.ts): encrypted links, only its workers admitted; null or absent: plain TCP. */
  curve?: CurveKeys | null;
  batchSize: number;
  flushIntervalMs: number;
  /** Batches ZeroMQ may hold per socket before `send` waits. */
  highWaterMark: number;
  /** Largest frame accepted (ZeroMQ maxMessageSize on the receiving socket) and sent (bigger batches are split). */
  maxFrameBytes: number;
  /** How links detect a dead peer and redial (link-liveness.ts); default LINK_LIVENESS. */
  liveness?: Readonly<LinkLiveness>;
  /** The sender's stamp on every frame (frame-stamp.ts); default UNSTAMPED (tools, tests). */
  stamp?: Readonly<FrameStamp>;
}

export interface TransportHandlers {
  /** A decoded frame (its columns; `tuples` gives rows); returns a promise when the worker wants reading paused (its last guard, batch-receiver.ts). */
  onBatch(frame: Frame): Promise<void> | void;
  /** A frame that could not be decoded. */
  onGarbage(err: unknown, bytes: number): void;
  /** Called when queued towards-peer tuples drop below the limit, so held-back executors can run. */
  onDrain(): void;
  /** A tuple that alone encodes bigger than maxFrameBytes was dropped instead of sent (its spout replays it). */
  onOversize?(tuples: number): void;
}

class Peer {
  readonly socket: zmq.Push;
  readonly batch = new BatchBuilder();
  /** Sealed frames waiting for the socket, and the tuples in each. */
  readonly outbox: Buffer[] = [];
  outboxTuples: number[] = [];
  /** Sum of outboxTuples, kept as a counter: the backpressure check runs per emit and must not sum the queued batches (docs/benchmarks.md, "Acking: where the time goes"). */
  outboxCount = 0;
  pumping = false;
  flushTimer: NodeJS.Timeout | null = null;
  sentBatches = 0;
  sentTuples = 0;

  constructor(
    readonly key: string,
    readonly address: PeerAddress,
    hwm: number,
    curve: CurveKeys | null,
    liveness: Readonly<LinkLiveness>,
  ) {
    this.socket = new zmq.Push({ sendHighWaterMark: hwm, linger: 0, immediate: false, ...liveness, ...(curve && curveClientOptions(curve)) });
    this.socket.connect(`tcp://${address.host}:${address.port}`);
  }

  get pendingTuples(): number {
    return this.batch.count + this.outboxCount;
  }
}

export class ZmqTransport {
  private readonly pull: zmq.Pull;
  private readonly peers = new Map<string, Peer>();
  /** The peer of the last send (see peer()); reset whenever a peer is set or dropped. */
  private lastKey = '';
  private lastPeer: Peer | null = null;
  private readonly garbageLog: RateLimitedLog;
  private closed = false;
  private releaseCurve: (() => void) | null = null;
  /** Who this worker is, in every frame it sends (frame-stamp.ts); the epoch follows its assignment (setEpoch). */
  private stamp: FrameStamp;
  receivedBatches = 0;
  receivedTuples = 0;
  /** Tuples dropped because alone they exceed maxFrameBytes. */
  oversizeTuples = 0;
  /** Tuples dropped because their values did not encode (a last guard: emit checks values first). */
  unencodableTuples = 0;

  constructor(
    private readonly opts: TransportOptions,
    private readonly handlers: TransportHandlers,
    private readonly log: Logger,
  ) {
    // maxMessageSize: ZeroMQ refuses a bigger frame before it is buffered (the peer is disconnected), so one forged
    // 1 GB frame cannot take the worker's memory; 64 such frames queued under the high-water mark are bounded too.
    this.pull = new zmq.Pull({
      receiveHighWaterMark: opts.highWaterMark,
      linger: 0,
      maxMessageSize: opts.maxFrameBytes,
      ...(opts.liveness ?? LINK_LIVENESS),
      ...(opts.curve && curveServerOptions(opts.curve)),
    });
    this.garbageLog = new RateLimitedLog(log);
    this.stamp = { ...(opts.stamp ?? UNSTAMPED) };
  }

  /** The assignment epoch frames are stamped with from now on (frames already sealed keep theirs). */
  setEpoch(epoch: number): void {
    this.stamp = { ...this.stamp, epoch };
  }

  async bind(): Promise<void> {
    if (this.opts.curve) this.releaseCurve = await admitCurveKeys(this.opts.curve, this.log);
    await this.pull.bind(`tcp://${this.opts.bindHost ?? '127.0.0.1'}:${this.opts.port}`);
    void this.receiveLoop();
  }

  /** Points `key` at an address; a peer that moved gets a fresh socket (what was queued for the old one is dropped and will be replayed by its spout). */
  setPeer(key: string, address: PeerAddress): void {
    const existing = this.peers.get(key);
    if (existing && existing.address.host === address.host && existing.address.port === address.port) return;
    if (existing) this.dropPeer(key);
    this.peers.set(key, new Peer(key, address, this.opts.highWaterMark, this.opts.curve ?? null, this.opts.liveness ?? LINK_LIVENESS));
    this.lastPeer = null;
  }

  dropPeer(key: string): void {
    const p = this.peers.get(key);
    if (!p) return;
    if (p.flushTimer) clearTimeout(p.flushTimer);
    this.peers.delete(key);
    this.lastPeer = null;
    p.socket.close();
  }

  peerKeys(): string[] {
    return [...this.peers.keys()];
  }

  pendingTuples(key: string): number {
    const p = key === this.lastKey && this.lastPeer !== null ? this.lastPeer : this.peers.get(key);
    return p?.pendingTuples ?? 0;
  }

  /** Queues a data tuple for a peer (`values` in their wire form, `anchors` as halves, `treeStart` as BatchBuilder.addTuple takes it). */
  sendTuple(key: string, dest: number, src: number, stream: string, values: unknown[], anchors: AnchorIds, treeStart = NO_TREE_START): void {
    const p = this.peer(key);
    if (!p.batch.hasRoomFor(stream)) this.seal(p);
    this.added(p, p.batch.addTuple(dest, src, stream, values, anchors, treeStart));
  }

  /** Queues one ack-protocol message for a peer: it joins the open batch's run of its route and kind. */
  sendAck(key: string, dest: number, src: number, kind: AckKind, rootLo: number, rootHi: number, valLo: number, valHi: number): void {
    const p = this.peer(key);
    this.added(p, p.batch.addAck(dest, src, kind, rootLo, rootHi, valLo, valHi));
  }

  /** Queues a run of ack-protocol messages of one kind for a peer. */
  sendAcks(key: string, dest: number, src: number, kind: AckKind, words: Uint32Array): void {
    const p = this.peer(key);
    this.added(p, p.batch.addAcks(dest, src, kind, words));
  }

  /** Queues a tuple given as a row (load reports, tools): anchors as bigints. */
  send(key: string, [dest, src, stream, values, ids]: WireTuple): void {
    let anchors: number[] | null = null;
    if (ids !== null) {
      anchors = new Array<number>(2 * ids.length);
      ids.forEach((id, i) => writeHalvesOf(id, anchors!, 2 * i));
    }
    this.sendTuple(key, dest, src, stream, values, anchors);
  }

  private peer(key: string): Peer {
    // Most sends in a row go to one peer, named by the same string: a reference compare instead of a Map look-up.
    if (key === this.lastKey && this.lastPeer !== null) return this.lastPeer;
    const p = this.peers.get(key);
    // Senders name workers of the assignment; only this worker itself has no link, named in the moment a rebalance
    // gives it tasks it runs no executor for (its supervisor restarts it then). A plain Error: that emit throws.
    if (!p) throw new Error(`no route to worker ${key}`);
    this.lastKey = key;
    this.lastPeer = p;
    return p;
  }

  /** After an add (`fill`: the batch's BatchBuilder.fill after it): seals a full batch, or starts the flush timer of a new one. */
  private added(p: Peer, fill: number): void {
    if (fill >= this.opts.batchSize) this.seal(p);
    else if (!p.flushTimer) {
      p.flushTimer = setTimeout(() => {
        p.flushTimer = null;
        if (p.batch.count > 0) this.seal(p);
      }, this.opts.flushIntervalMs);
    }
  }

  /** Seals every partial batch now (shutdown, tests). */
  flushAll(): void {
    for (const p of this.peers.values()) if (p.batch.count > 0) this.seal(p);
  }

  /** Resolves once every sealed batch was handed to ZeroMQ, or after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    this.flushAll();
    const until = Date.now() + timeoutMs;
    while (Date.now() < until && [...this.peers.values()].some((p) => p.outbox.length > 0 || p.pumping)) {
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  stats(): { peers: Record<string, { sentBatches: number; sentTuples: number; pending: number }> } {
    const peers: Record<string, { sentBatches: number; sentTuples: number; pending: number }> = {};
    for (const p of this.peers.values()) peers[p.key] = { sentBatches: p.sentBatches, sentTuples: p.sentTuples, pending: p.pendingTuples };
    return { peers };
  }

  private seal(p: Peer): void {
    if (p.flushTimer) {
      clearTimeout(p.flushTimer);
      p.flushTimer = null;
    }
    this.enqueueFrames(p, p.batch);
    p.batch.clear();
    if (!p.pumping) void this.pump(p);
  }

  /**
   * Encodes a batch into frames no bigger than maxFrameBytes: halves a batch that is too big; drops a lone tuple that
   * is. A batch that does not encode is halved the same way, down to the tuple that does not, which is dropped and
   * counted: emit checks every value (common/values/), so this is a last guard — a user's value never takes the
   * worker down, even from the flush timer.
   */
  private enqueueFrames(p: Peer, b: BatchBuilder): void {
    let frame: Buffer;
    try {
      frame = encodeFrame(this.opts.port, b, this.stamp);
    } catch (err) {
      const halves = b.halves();
      if (halves) {
        for (const h of halves) this.enqueueFrames(p, h);
      } else {
        this.unencodableTuples += b.count;
        this.garbageLog.warn({ peer: p.key, stream: b.streams[0], err: (err as Error)?.message }, 'dropped a tuple whose values did not encode');
      }
      return;
    }
    if (frame.length <= this.opts.maxFrameBytes) {
      p.outbox.push(frame);
      p.outboxTuples.push(b.count);
      p.outboxCount += b.count;
      return;
    }
    const halves = b.halves();
    if (halves) {
      for (const h of halves) this.enqueueFrames(p, h);
      return;
    }
    this.oversizeTuples += b.count;
    this.handlers.onOversize?.(b.count);
    this.garbageLog.warn(
      { peer: p.key, bytes: frame.length, limit: this.opts.maxFrameBytes, stream: b.streams[0] },
      'dropped a tuple bigger than topology.transfer.max.frame.bytes; raise the limit or send smaller values',
    );
  }

  /** One send at a time per socket (zeromq.js rule); waits when the peer's high-water mark is reached. */
  private async pump(p: Peer): Promise<void> {
    p.pumping = true;
    try {
      while (p.outbox.length > 0 && this.peers.get(p.key) === p) {
        const frame = p.outbox[0]!;
        await p.socket.send(frame);
        p.outbox.shift();
        const sent = p.outboxTuples.shift() ?? 0;
        p.outboxCount -= sent;
        p.sentTuples += sent;
        p.sentBatches++;
        this.handlers.onDrain();
      }
    } catch (err) {
      if (!this.closed && this.peers.get(p.key) === p) this.log.warn({ err, peer: p.key }, 'send to peer failed');
    } finally {
      p.pumping = false;
    }
  }

  private async receiveLoop(): Promise<void> {
    try {
      for await (const [frame] of this.pull) {
        if (!frame) continue;
        let batch: Frame | null = null;
        let wait: Promise<void> | void;
        try {
          batch = readFrame(frame, true);
          wait = this.handlers.onBatch(batch);
        } catch (err) {
          // A frame that does not read, or whose values do not unpack when the handler first asks for them
          // (Frame.values), is counted and dropped; anything else a handler throws is its defect, not the frame's.
          if (batch !== null && !(err instanceof CodecError)) throw err;
          this.handlers.onGarbage(err, frame.length);
          this.garbageLog.warn({ err: (err as Error).message, bytes: frame.length }, 'dropped an undecodable frame');
          continue;
        }
        this.receivedBatches++;
        this.receivedTuples += batch.tupleCount + batch.ackMessages;
        if (wait) await wait;
      }
    } catch (err) {
      if (!this.closed) this.log.error({ err }, 'receive loop ended');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const key of [...this.peers.keys()]) this.dropPeer(key);
    this.pull.close();
    this.releaseCurve?.();
  }
}
