/**
 * The adaptive CPU/GPU split end to end in local mode (DESIGN §8): real
 * worker processes, γ signals through the in-memory store's watches over IPC.
 * The hybrid fixture's "GPU" bolt is 4× faster than its "CPU" bolt, so γ must
 * go from 0.5 to 0.8 ± 0.05 and stay there; both spout tasks (one per worker)
 * must apply every γ the controller publishes within a second; and nothing
 * may be lost on the way.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT, runLocal } from '../../cli/local-run.js';
import type { RunSummary } from '../../cli/run-summary.js';
import type { SplitMetrics } from '../../common/storm-base.js';
import { GAMMA_TOLERANCE, SETTLE_WINDOWS, TARGET_GAMMA, assertConverged, assertEveryTaskApplied, assertNothingLost } from '../helpers/split-checks.js';

/**
 * γ publications the spouts stay active for at least: enough to settle and then long enough at the settled γ (~6 s at
 * two windows a second) that the tuples sent overall follow it, not the γ0 = 0.5 of the start.
 */
const MIN_PUBLISHED = SETTLE_WINDOWS + 12;
/** The longest active run: generous, for a loaded machine; a run normally stops at MIN_PUBLISHED, in ~10 s. */
const MAX_ACTIVE_SEC = 120;

describe('adaptive split in local mode', function () {
  this.timeout(200_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-split-local-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('converges γ to the GPU share of speed, every spout task follows, nothing is lost', async () => {
    const out = join(dir, 'reports.jsonl');
    const progress: { elapsed: number; splits: SplitMetrics[] }[] = [];
    const t0 = Date.now();
    let activeUntil = Infinity;
    let activeSec = Infinity;
    const splitsOf = (s: RunSummary) => (s.components.source?.split ?? []).filter((m): m is SplitMetrics => m !== undefined);
    const summary: RunSummary = await runLocal({
      module: join(PACKAGE_ROOT, 'test/fixtures/hybrid-split-topology'),
      durationSec: MAX_ACTIVE_SEC,
      drainSec: 10,
      overrides: { 'hybrid.output': out },
      onProgress: (s, elapsed) => {
        const splits = splitsOf(s);
        if (splits.length > 0) progress.push({ elapsed, splits });
      },
      // Active until the controller has published enough γ to judge, not for a fixed time.
      until: (s, elapsed) => {
        const controller = splitsOf(s).find((m) => m.controller);
        if (!controller || controller.applied.length < MIN_PUBLISHED) return false;
        activeUntil = Date.now();
        activeSec = elapsed;
        return true;
      },
    });
    assert.ok(activeUntil < Infinity, `γ was not published ${MIN_PUBLISHED} times within ${MAX_ACTIVE_SEC} s`);

    const splits = (summary.components.source?.split ?? []).filter((m): m is SplitMetrics => m !== undefined);
    assert.equal(splits.length, 2, 'split metrics from both spout tasks');
    assert.ok(splits.every((s) => s.policy === 'latency' && s.theta === 0.3));
    const converged = assertConverged(splits, activeUntil);
    const applied = assertEveryTaskApplied(splits);

    // The live view (progress callbacks, from heartbeats) showed γ in the band while the topology ran.
    const live = progress.filter((p) => p.elapsed <= activeSec).at(-1);
    assert.ok(live, 'progress reported split metrics while active');
    assert.ok(
      live.splits.every((s) => Math.abs(s.gamma - TARGET_GAMMA) <= GAMMA_TOLERANCE),
      `live γ ${live.splits.map((s) => s.gamma).join(', ')} at ${live.elapsed.toFixed(1)} s`,
    );
    // Both sides really got tuples, and the GPU side clearly more. The counts cover the whole run, γ0 = 0.5 and the
    // climb included, and on a loaded machine the settled part may hold only a few hundred tuples, so the overall
    // ratio sits between 1:1 (no adaptation) and γ's 4:1; twice as many on the GPU side still tells the two apart
    // (a CI run measured 156 : 54, below 3:1, with γ settled at 0.8).
    const sentGpu = splits.reduce((n, s) => n + s.sentGpu, 0);
    const sentCpu = splits.reduce((n, s) => n + s.sentCpu, 0);
    assert.ok(sentCpu > 0 && sentGpu > 2 * sentCpu, `sent cpu ${sentCpu}, gpu ${sentGpu}`);

    const { emitted } = assertNothingLost(out, 2);
    assert.equal(summary.failed, 0);
    assert.equal(summary.acked, emitted);
    assert.equal(summary.components.sink?.executed, emitted);
    console.log(
      `      γ ${converged.gamma.toFixed(3)} after ${converged.windows} windows (${converged.published} published), ` +
        `γ applied ≤ ${applied.maxDelayMs} ms after publication, ${emitted} ids, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
    );
  });
});
