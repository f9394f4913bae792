/**
 * `hstorm local` with a worker that keeps dying at start: it stops as soon as the worker is seen crash-looping and
 * exits non-zero, naming the component and why — it neither waits out its duration nor reports a clean run.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';
import { WorkerCrashLoopError } from '../../cli/crash-loop.js';

const FIXTURE = join(PACKAGE_ROOT, 'test/fixtures/prepare-throws-topology');

describe('hstorm local with a crash-looping worker', function () {
  this.timeout(180_000);

  it('runLocal stops with WorkerCrashLoopError naming the worker, its components and the component that failed', async () => {
    const started = Date.now();
    await assert.rejects(runLocal({ module: FIXTURE, durationSec: 150, overrides: {} }), (err: unknown) => {
      assert.ok(err instanceof WorkerCrashLoopError, String(err));
      assert.equal(err.code, 'HSTORM_ERR_LOCAL_CRASH_LOOP');
      assert.equal(err.workers.length, 1);
      assert.ok(err.workers[0]!.executors.some((e) => e.component === 'broken'));
      assert.match(err.message, /component "broken" task \d+ failed to start \(its open\/prepare threw\): cannot reach the database/);
      return true;
    });
    assert.ok(Date.now() - started < 140_000, 'it stopped before its duration ran out');
  });

  it('the command exits non-zero and says it on stderr', async () => {
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin/hstorm.js'), 'local', FIXTURE, '--duration', '150'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 2, stderr);
    assert.match(stderr, /hstorm: topology "prepare-throws-topology" stopped: the worker on .* \(running .*broken\[\d+\].*\) died \d+ times at start.*component "broken" task \d+ failed to start.*\[HSTORM_ERR_LOCAL_CRASH_LOOP\]/s);
  });
});
