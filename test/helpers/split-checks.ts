/**
 * Checks shared by the local-mode and cluster-mode adaptive-split tests: what
 * the hybrid fixture (test/fixtures/hybrid-split-topology.ts) reports, and
 * what "converged" and "every task followed" mean for its spouts' SplitMetrics.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { SplitMetrics } from '../../common/storm-base.js';

/** γ the fixture's 4:1 service times lead to, and the band it must settle in. */
export const TARGET_GAMMA = 0.8;
export const GAMMA_TOLERANCE = 0.05;
/**
 * Publications the controller gets, from γ0 = 0.5, before γ must be in the
 * band: with the fixture's θ = 0.3 and δ ≈ 0.79, γ is 0.77 after eight.
 */
export const SETTLE_WINDOWS = 8;

export interface SpoutReport {
  role: 'spout';
  task: number;
  emitted: number;
  acked: number;
  failures: number;
}

export interface SinkReport {
  role: 'sink';
  ids: number[];
  duplicates: number;
}

export function readReports(file: string): { spouts: SpoutReport[]; sinks: SinkReport[] } {
  const lines = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as SpoutReport | SinkReport)
    : [];
  return { spouts: lines.filter((l): l is SpoutReport => l.role === 'spout'), sinks: lines.filter((l): l is SinkReport => l.role === 'sink') };
}

/** Every spout message acked, and the sink saw exactly the ids the spouts emitted (task index × 1e6 + sequence). */
export function assertNothingLost(file: string, spoutTasks: number): { emitted: number } {
  const { spouts, sinks } = readReports(file);
  const tasks = spouts.map((s) => s.task).sort((a, b) => a - b);
  assert.equal(new Set(tasks).size, spoutTasks, `every spout task reported once (${tasks.join(', ')})`);
  assert.equal(tasks.length, spoutTasks, `every spout task reported once (${tasks.join(', ')})`);
  assert.equal(sinks.length, 1, 'the sink reported once');
  const expected = new Set<number>();
  for (const s of spouts) {
    assert.ok(s.emitted > 0, `spout task ${s.task} emitted nothing`);
    assert.equal(s.acked, s.emitted, `spout task ${s.task}: every message acked (${s.acked} of ${s.emitted}, ${s.failures} failures)`);
    const index = tasks.indexOf(s.task);
    for (let n = 0; n < s.emitted; n++) expected.add(index * 1_000_000 + n);
  }
  const seen = new Set(sinks[0]!.ids);
  assert.equal(seen.size, expected.size, `sink saw ${seen.size} distinct ids, spouts emitted ${expected.size}`);
  for (const id of expected) assert.ok(seen.has(id), `id ${id} never reached the sink`);
  return { emitted: expected.size };
}

/**
 * The controller's γ, as published up to `until` (epoch ms; the end of the
 * active run, so the thin windows of the drain do not count): published at
 * least SETTLE_WINDOWS + 3 times, and every value after the first
 * SETTLE_WINDOWS publications within the band, the last one included.
 */
export function assertConverged(splits: readonly SplitMetrics[], until = Infinity): { gamma: number; windows: number; published: number } {
  const controller = splits.find((s) => s.controller);
  assert.ok(controller, 'one spout task is the split controller');
  assert.equal(splits.filter((s) => s.controller).length, 1, 'exactly one controller');
  const applied = controller.applied.filter((a) => a.publishedAt <= until);
  assert.ok(applied.length >= SETTLE_WINDOWS + 3, `γ was published ${applied.length} times; expected at least ${SETTLE_WINDOWS + 3}`);
  assert.ok(controller.windows >= applied.length, `${controller.windows} windows for ${applied.length} publications`);
  // seq counts publications from 0, and every window with samples on both sides publishes.
  const settled = applied.filter((a) => a.seq >= SETTLE_WINDOWS);
  const band = (g: number) => Math.abs(g - TARGET_GAMMA) <= GAMMA_TOLERANCE;
  const trace = applied.map((a) => a.gamma.toFixed(3)).join(' ');
  assert.ok(settled.every((a) => band(a.gamma)), `γ left ${TARGET_GAMMA} ± ${GAMMA_TOLERANCE} after settling: ${trace}`);
  const last = applied[applied.length - 1]!.gamma;
  assert.ok(band(last), `final γ ${last}: ${trace}`);
  return { gamma: last, windows: controller.windows, published: applied.length };
}

/**
 * Every spout task applied every γ the controller published (the same run of
 * signal sequence numbers, no gaps), each within `maxDelayMs` of publication.
 */
export function assertEveryTaskApplied(splits: readonly SplitMetrics[], maxDelayMs = 1000): { maxDelayMs: number } {
  assert.ok(splits.length >= 2, `expected split metrics from every spout task, got ${splits.length}`);
  // Each task keeps its last 32; compare over the range all of them still hold.
  const from = Math.max(...splits.map((s) => s.applied[0]?.seq ?? Infinity));
  const to = Math.min(...splits.map((s) => s.applied[s.applied.length - 1]?.seq ?? -Infinity));
  assert.ok(to - from >= 5, `too few publications in common (${from}..${to})`);
  const expected = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  let worst = 0;
  for (const s of splits) {
    const inRange = s.applied.filter((a) => a.seq >= from && a.seq <= to);
    assert.deepEqual(
      inRange.map((a) => a.seq),
      expected,
      `a spout task (controller: ${s.controller}) missed or repeated a γ publication`,
    );
    for (const a of s.applied) {
      const delay = a.appliedAt - a.publishedAt;
      worst = Math.max(worst, delay);
      assert.ok(delay >= -50 && delay <= maxDelayMs, `γ ${a.gamma} (seq ${a.seq}) applied ${delay} ms after publication`);
    }
  }
  // The same seq carries the same γ on every task.
  const bySeq = new Map<number, number>();
  for (const s of splits) {
    for (const a of s.applied) {
      const g = bySeq.get(a.seq);
      if (g === undefined) bySeq.set(a.seq, a.gamma);
      else assert.equal(a.gamma, g, `seq ${a.seq} carried two values of γ`);
    }
  }
  return { maxDelayMs: worst };
}
