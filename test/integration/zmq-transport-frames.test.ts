/**
 * The worker transport's frame size limit (`topology.transfer.max.frame.bytes`)
 * over real ZeroMQ sockets on real ports: a receiver refuses a frame above the
 * limit before buffering it and keeps serving; a sender splits a batch that
 * would exceed it and drops (and counts) a lone tuple that alone does.
 */
import assert from 'node:assert/strict';
import * as zmq from 'zeromq';
import { ZmqTransport, encodeBatch, type Frame, type WireBatch, type WireTuple } from '../../worker/index.js';
import { ACK, ACKED, FAIL } from '../../worker/acking/ack-messages.js';
import { silentLogger } from '../../common/logger.js';
import { freePort } from '../helpers/ports.js';
import { ACK_FILL } from '../../worker/transport/batch-builder.js';
import { waitFor } from '../helpers/wait-for.js';

const LIMIT = 128 * 1024;

function receiver(port: number): { transport: ZmqTransport; batches: WireBatch[] } {
  const batches: WireBatch[] = [];
  const transport = new ZmqTransport(
    { port, batchSize: 128, flushIntervalMs: 1, highWaterMark: 64, maxFrameBytes: LIMIT },
    { onBatch: (b) => void batches.push(b), onGarbage: () => undefined, onDrain: () => undefined },
    silentLogger(),
  );
  return { transport, batches };
}

describe('worker transport frame size limit (real ZeroMQ sockets)', function () {
  this.timeout(60_000);
  const closers: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  /**
   * A bound receiver on a free port, and a transport sending to it as peer 'rx' with this batch size and flush
   * interval; both closed after the test.
   */
  async function linked(opts: { batchSize: number; flushIntervalMs: number }, onOversize?: (n: number) => void): Promise<{ tx: ZmqTransport; batches: WireBatch[] }> {
    const port = await freePort();
    const { transport: rx, batches } = receiver(port);
    closers.push(() => rx.close());
    await rx.bind();
    const tx = new ZmqTransport(
      { port: await freePort(), ...opts, highWaterMark: 64, maxFrameBytes: LIMIT },
      { onBatch: () => undefined, onGarbage: () => undefined, onDrain: () => undefined, ...(onOversize && { onOversize }) },
      silentLogger(),
    );
    closers.push(() => tx.close());
    tx.setPeer('rx', { host: '127.0.0.1', port });
    return { tx, batches };
  }

  it('refuses a frame above the limit and goes on receiving what follows', async () => {
    const port = await freePort();
    const { transport, batches } = receiver(port);
    closers.push(() => transport.close());
    await transport.bind();

    const big = encodeBatch(1, [[2, 1, 'default', ['x'.repeat(4 * LIMIT)], null]]);
    const forged = new zmq.Push({ linger: 0 });
    forged.connect(`tcp://127.0.0.1:${port}`);
    closers.push(() => forged.close());
    await forged.send(big);

    // A well-behaved peer keeps being served (the forged one is disconnected by ZeroMQ, not the worker's socket).
    const good = new zmq.Push({ linger: 0 });
    good.connect(`tcp://127.0.0.1:${port}`);
    closers.push(() => good.close());
    const sent = [];
    for (let i = 0; i < 20; i++) {
      sent.push(i);
      await good.send(encodeBatch(1, [[2, 1, 'default', [i], null]]));
    }
    await waitFor('the small frames received', () => batches.length >= 20, 20_000, 20);
    assert.deepEqual(
      batches.map((b) => b.tuples[0]![3][0]),
      sent,
      'only the small frames arrived, in order; the oversized one never reached the worker',
    );
  });

  it('splits a batch bigger than the limit into frames below it, and drops a tuple that alone exceeds it', async () => {
    const oversize: number[] = [];
    const { tx, batches } = await linked({ batchSize: 64, flushIntervalMs: 1 }, (n) => oversize.push(n));

    const value = 'v'.repeat(LIMIT / 8); // 64 of these make a 1 MiB batch
    for (let i = 0; i < 64; i++) tx.send('rx', [2, 1, 'default', [i, value], null] as WireTuple);
    tx.send('rx', [2, 1, 'default', [-1, 'w'.repeat(2 * LIMIT)], null] as WireTuple);
    for (let i = 64; i < 70; i++) tx.send('rx', [2, 1, 'default', [i, value], null] as WireTuple);
    tx.flushAll();

    await waitFor('every tuple that fits received', () => batches.reduce((n, b) => n + b.tuples.length, 0) >= 70, 20_000, 20);
    const ids = batches.flatMap((b) => b.tuples.map((t) => t[3][0] as number));
    assert.deepEqual(ids, [...Array(70).keys()], 'all the tuples that fit, in order, and not the oversized one');
    assert.ok(batches.length >= 8, `a 1 MiB batch needs at least 8 frames of ${LIMIT} bytes (got ${batches.length})`);
    assert.deepEqual(oversize, [1]);
    assert.equal(tx.oversizeTuples, 1);
  });

  it('merges the ack messages of a batch per destination, source and kind into runs of its ack section, and counts each message for backpressure', async () => {
    const { tx, batches } = await linked({ batchSize: 8, flushIntervalMs: 1000 });
    tx.sendAck('rx', 5, 2, ACK, 1, 0, 11, 0);
    tx.sendTuple('rx', 7, 3, 'default', ['data'], [1, 0, 5, 0]);
    tx.sendAck('rx', 5, 2, ACK, 2, 0, 22, 0);
    tx.sendAck('rx', 6, 2, ACK, 3, 0, 33, 0);
    tx.sendAck('rx', 5, 2, FAIL, 4, 0, 0, 0);
    tx.sendAck('rx', 5, 2, ACK, 5, 0, 55, 0);
    assert.equal(tx.pendingTuples('rx'), 6, 'six messages wait, though one tuple and three runs');
    tx.sendAcks('rx', 5, 9, ACKED, Uint32Array.of(6, 0));
    tx.sendAck('rx', 5, 2, ACK, 7, 0xffffffff, 77, 1);
    // Eight messages fill 1 + 7 × ACK_FILL of 8: the batch stays open (the one frame below holds them all); with the
    // flush timer a second away, only filling it (1 + 28 × ACK_FILL = 8) seals it in time.
    assert.equal(ACK_FILL, 0.25);
    for (let i = 8; i < 29; i++) tx.sendAck('rx', 6, 2, ACK, i, 0, i, 0);
    await waitFor('the batch received', () => batches.length === 1, 20_000, 20);
    const f = batches[0] as Frame;
    assert.deepEqual(f.tuples, [[7, 3, 'default', ['data'], [1n, 5n]]]);
    const runs = Array.from(f.ackDest, (dest, i) => [dest, f.ackSrc[i], f.ackKind[i], f.ackCount[i]]);
    assert.deepEqual(runs, [
      [5, 2, ACK, 4],
      [6, 2, ACK, 22],
      [5, 2, FAIL, 1],
      [5, 9, ACKED, 1],
    ]);
    const more = Array.from({ length: 21 }, (_, k) => [k + 8, 0, k + 8, 0]).flat();
    assert.deepEqual(Array.from(f.ackWords), [1, 0, 11, 0, 2, 0, 22, 0, 5, 0, 55, 0, 7, 0xffffffff, 77, 1, 3, 0, 33, 0, ...more, 4, 0, 6, 0]);
  });

  it('seals a frame of acks alone at 1 / ACK_FILL times the batch size, a frame of tuples at the batch size', async () => {
    // The flush timer never fires within the test: every frame below was sealed by filling up.
    const { tx, batches } = await linked({ batchSize: 8, flushIntervalMs: 600_000 });
    const perFrame = 8 / ACK_FILL;
    for (let i = 1; i <= 2 * perFrame; i++) tx.sendAck('rx', 5, 2, ACK, i, 0, i, 0);
    for (let i = 0; i < 16; i++) tx.sendTuple('rx', 7, 3, 'default', [i], null);
    await waitFor('four frames received', () => batches.length === 4, 20_000, 20);
    const sizes = (batches as Frame[]).map((b) => [b.ackMessages, b.tupleCount]);
    assert.deepEqual(sizes, [
      [perFrame, 0],
      [perFrame, 0],
      [0, 8],
      [0, 8],
    ]);
  });
});
