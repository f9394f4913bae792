/**
 * Property test of Storm's acker algorithm (worker/acking/ack-tracker.ts): random
 * tuple trees, their ack messages delivered in random order, some lost, some
 * duplicated, some fails. A model says when each tree must complete, without
 * XOR: every edge id appears in exactly two messages (the one that created it
 * — the spout's init or the parent's ack — and its own tuple's ack), and the
 * messages of a tree are connected through its edges, so the only set of
 * messages whose edges all cancel is the whole tree. The XOR is therefore zero
 * exactly when every message of the tree has been delivered an odd number of
 * times (a duplicate cancels its original), and never for a strict subset
 * (up to a 64-bit collision). The tracker must report each completion at that
 * point and nowhere else, fails as soon as init and fail have both arrived,
 * and forget a tree after two rotations.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { AckTracker } from '../../../worker/acking/ack-tracker.js';
import { randomId64 } from '../../../worker/acking/ack-ids.js';
import { seededRandom } from '../../../common/seeded-random.js';

/** A tree as parent indices: node 0 is the spout tuple's first child, parent[i] < i or -1 for the spout (root). */
const treeArb = fc.array(fc.nat(), { minLength: 1, maxLength: 12 }).map((raw) => raw.map((r, i) => (i === 0 ? -1 : (r % (i + 1)) - 1)));

type Msg = { kind: 'init'; val: bigint } | { kind: 'ack'; val: bigint; node: number } | { kind: 'fail' };

/** The protocol messages of one tree: an edge id per tuple; init carries the spout's child edges, each tuple's ack its own edge XOR its children's. */
function messagesOf(parent: number[]): Msg[] {
  const edge = parent.map(() => randomId64());
  let init = 0n;
  const childXor = parent.map(() => 0n);
  parent.forEach((p, i) => {
    if (p < 0) init ^= edge[i]!;
    else childXor[p] = childXor[p]! ^ edge[i]!;
  });
  return [{ kind: 'init', val: init }, ...parent.map((_, i): Msg => ({ kind: 'ack', val: edge[i]! ^ childXor[i]!, node: i }))];
}

/** A delivery schedule: each message 0, 1 or 2 times, plus maybe a fail, in a random order. */
const scheduleArb = (n: number) =>
  fc
    .record({
      copies: fc.array(fc.constantFrom(0, 1, 1, 1, 2), { minLength: n, maxLength: n }),
      fail: fc.integer({ min: 0, max: 9 }).map((x) => x < 3),
      seed: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 2 * n + 1, maxLength: 2 * n + 1 }),
    })
    .map(({ copies, fail, seed }) => {
      const order: number[] = [];
      copies.forEach((c, i) => {
        for (let k = 0; k < c; k++) order.push(i);
      });
      if (fail) order.push(-1);
      // Shuffle by the generated keys (so fast-check can shrink the order too).
      return order.map((m, i) => ({ m, key: seed[i] ?? 0 })).sort((a, b) => a.key - b.key).map((x) => x.m);
    });

interface Done {
  step: number;
  root: bigint;
  spoutTask: number;
  acked: boolean;
}

describe('worker/acking/ack-tracker (property)', () => {
  it('completes a tree exactly when every edge is acked: random trees, orders, lost and duplicated acks, fails', () => {
    fc.assert(
      fc.property(
        treeArb.chain((parent) => fc.tuple(fc.constant(parent), scheduleArb(parent.length + 1))),
        fc.integer({ min: 0, max: 1000 }),
        ([parent, order], spoutTask) => {
          const msgs = messagesOf(parent);
          const root = randomId64();
          const done: Done[] = [];
          let step = -1;
          const tracker = new AckTracker((r, t, acked) => done.push({ step, root: r, spoutTask: t, acked }));

          // The model: parity of each message delivered since the last completion, whether the init and a fail were seen.
          const expected: Omit<Done, 'root' | 'spoutTask'>[] = [];
          let parity = msgs.map(() => 0);
          let initSeen = false;
          let failed = false;
          for (step = 0; step < order.length; step++) {
            const m = order[step]!;
            if (m < 0) {
              tracker.fail(root);
              failed = true;
            } else {
              const msg = msgs[m]!;
              if (msg.kind === 'init') {
                tracker.init(root, msg.val, spoutTask);
                initSeen = true;
              } else if (msg.kind === 'ack') {
                tracker.ack(root, msg.val);
              }
              parity[m] = parity[m]! ^ 1;
            }
            // XOR zero: every message odd (the tree is acked), or every one even — which, with the init seen, takes a
            // duplicated init; Storm's acker XORs a repeated init in too, so a duplicate can end a tree early (TCP never duplicates).
            const zero = parity.every((p) => p === 1) || parity.every((p) => p === 0);
            if (initSeen && (failed || zero)) {
              expected.push({ step, acked: !failed });
              // The acker forgets a finished tree: what arrives later starts a fresh entry.
              parity = msgs.map(() => 0);
              initSeen = false;
              failed = false;
            }
          }
          assert.deepEqual(
            done.map((d) => ({ step: d.step, acked: d.acked })),
            expected,
          );
          for (const d of done) {
            assert.equal(d.root, root);
            assert.equal(d.spoutTask, spoutTask);
          }
          // Whatever is still open is gone after two rotations, never reported.
          tracker.rotate();
          tracker.rotate();
          assert.equal(tracker.size, 0);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('with every message delivered once, in any order, completes once at the last message — and never with one lost', () => {
    fc.assert(
      fc.property(
        treeArb.chain((parent) => fc.tuple(fc.constant(parent), fc.shuffledSubarray([...Array(parent.length + 1).keys()], { minLength: parent.length + 1 }))),
        fc.nat(),
        ([parent, order], lostPick) => {
          const msgs = messagesOf(parent);
          const deliver = (tracker: AckTracker, root: bigint, skip: number): void => {
            for (let i = 0; i < order.length; i++) {
              if (i === skip) continue;
              const msg = msgs[order[i]!]!;
              if (msg.kind === 'init') tracker.init(root, msg.val, 3);
              else if (msg.kind === 'ack') tracker.ack(root, msg.val);
            }
          };
          const completions: number[] = [];
          let delivered = 0;
          const tracker = new AckTracker(() => completions.push(delivered));
          const root = randomId64();
          for (let i = 0; i < order.length; i++) {
            delivered = i + 1;
            const msg = msgs[order[i]!]!;
            if (msg.kind === 'init') tracker.init(root, msg.val, 3);
            else if (msg.kind === 'ack') tracker.ack(root, msg.val);
          }
          assert.deepEqual(completions, [order.length]);
          assert.equal(tracker.size, 0);

          let lostCompleted = 0;
          const lossy = new AckTracker(() => lostCompleted++);
          deliver(lossy, root, lostPick % order.length);
          assert.equal(lostCompleted, 0, 'a tree missing one message never completes');
          assert.equal(lossy.size, 1);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps thousands of interleaved trees apart (table growth, probing, removal): each completes at its own last message', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6000 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 9 }), (trees, seed, lossPercent) => {
        const rand = seededRandom(seed);
        const roots: bigint[] = [];
        const lost = new Set<number>();
        const queue: { tree: number; msg: Msg; last: boolean }[][] = [];
        for (let t = 0; t < trees; t++) {
          roots.push(randomId64());
          const parent = [...Array(1 + Math.floor(rand() * 4)).keys()].map((i) => (i === 0 ? -1 : Math.floor(rand() * (i + 1)) - 1));
          let msgs = messagesOf(parent);
          if (rand() * 100 < lossPercent) {
            lost.add(t);
            const drop = Math.floor(rand() * msgs.length);
            msgs = msgs.filter((_, i) => i !== drop);
          }
          queue.push(msgs.map((msg, i) => ({ tree: t, msg, last: i === msgs.length - 1 })));
        }
        // Interleave: repeatedly take the next message of a random tree that still has some.
        const expected: number[] = [];
        const completed: number[] = [];
        const index = new Map(roots.map((r, t) => [r, t]));
        const tracker = new AckTracker((root) => completed.push(index.get(root)!));
        const open = queue.map((_, t) => t);
        while (open.length > 0) {
          const k = Math.floor(rand() * open.length);
          const t = open[k]!;
          const item = queue[t]!.shift()!;
          if (queue[t]!.length === 0) {
            open[k] = open[open.length - 1]!;
            open.pop();
          }
          if (item.msg.kind === 'init') tracker.init(roots[t]!, item.msg.val, 1);
          else if (item.msg.kind === 'ack') tracker.ack(roots[t]!, item.msg.val);
          if (queue[t]!.length === 0 && !lost.has(t)) expected.push(t);
        }
        assert.deepEqual(completed, expected);
        assert.equal(tracker.size, lost.size, 'the incomplete trees are still tracked');
        tracker.rotate();
        assert.equal(tracker.size, lost.size, 'one rotation keeps them');
        tracker.rotate();
        assert.equal(tracker.size, 0, 'two rotations drop them');
      }),
      { numRuns: 25 },
    );
  });

  it('keeps a tree across one rotation and drops it after the second', () => {
    const done: bigint[] = [];
    const tracker = new AckTracker((r) => done.push(r));
    tracker.init(1n, 5n, 0);
    tracker.rotate();
    tracker.ack(1n, 5n); // found in the previous generation: completes
    assert.deepEqual(done, [1n]);
    tracker.init(2n, 7n, 0);
    tracker.rotate();
    tracker.rotate();
    tracker.ack(2n, 7n); // forgotten: a fresh entry without init, never complete
    assert.deepEqual(done, [1n]);
  });
});

