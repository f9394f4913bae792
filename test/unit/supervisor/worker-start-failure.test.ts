/**
 * A worker process that cannot start at all (the node cannot be executed:
 * EACCES for a worker user who cannot reach it, ENOENT) must come back as an
 * exit the supervisor sees, with why in the worker's log — Node reports such a
 * spawn only through 'error', never 'exit'. Before, the worker counted as
 * running forever: no restart, no reason, and stopping it hung. And a
 * supervisor whose worker user cannot run its node refuses at start.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../common/errors.js';
import { silentLogger } from '../../../common/logger.js';
import { lastErrorInLog } from '../../../supervisor/worker-log-error.js';
import { WorkerLauncher } from '../../../supervisor/worker-launcher.js';
import { resolveWorkerUser } from '../../../supervisor/worker-user.js';

describe('a worker process that cannot start', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-worker-start-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('exits at once with the reason in its log, and stopping it returns', async () => {
    const launcher = new WorkerLauncher({
      log: silentLogger(),
      entry: join(dir, 'entry.js'),
      childopts: [],
      logDir: join(dir, 'logs'),
      pidDir: join(dir, 'workers'),
      clusterConfig: {},
      execPath: join(dir, 'no-such-node'),
    });
    const w = launcher.launch({ topologyId: 't-1', supervisorId: 's', host: '127.0.0.1', port: 6700, modulePath: join(dir, 'm.js'), gpu: null });
    const exit = await Promise.race([w.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5_000))]);
    assert.deepEqual(exit, { code: null, signal: null });
    assert.equal(w.alive, false);
    assert.deepEqual(await w.stop(1_000), { code: null, signal: null });
    assert.match(readFileSync(w.logFile, 'utf8'), /cannot start the worker process: spawn .*no-such-node ENOENT/);
    assert.match((await lastErrorInLog(w.logFile)) ?? '', /cannot start the worker process/);
  });

  describe('supervisor.worker.user who cannot reach the node or the worker script (root only)', () => {
    before(function () {
      if (process.getuid?.() !== 0) this.skip(); // only root can switch users; a non-root supervisor refuses earlier
    });

    it('refuses at start when that user cannot run the node', () => {
      const hidden = join(dir, 'private');
      mkdirSync(hidden, { mode: 0o700 });
      const node = join(hidden, 'node');
      writeFileSync(node, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
      chmodSync(hidden, 0o700);
      assert.throws(
        () => resolveWorkerUser({ 'supervisor.worker.user': 'nobody' }, { execPath: node, entry: join(dir, 'entry.js') }),
        (err: unknown) => err instanceof ConfigError && err.key === 'supervisor.worker.user' && /user "nobody" cannot run this node \(.*private\/node: EACCES\)/.test(err.message),
      );
    });

    it('refuses at start when that user cannot read the worker script', function () {
      if (!existsSync('/usr/bin/node')) this.skip(); // the check needs a node that user can run
      const hidden = join(dir, 'private');
      mkdirSync(hidden, { mode: 0o700 });
      const entry = join(hidden, 'main.js');
      writeFileSync(entry, '');
      chmodSync(hidden, 0o700);
      chmodSync(dir, 0o755);
      // /usr/bin/node: a node every user can run, whichever node runs this test.
      assert.throws(
        () => resolveWorkerUser({ 'supervisor.worker.user': 'nobody' }, { execPath: '/usr/bin/node', entry }),
        (err: unknown) => err instanceof ConfigError && /user "nobody" cannot read hstorm's worker script \(.*main\.js: .*EACCES/.test(err.message),
      );
      writeFileSync(join(dir, 'main.js'), '');
      assert.equal(resolveWorkerUser({ 'supervisor.worker.user': 'nobody' }, { execPath: '/usr/bin/node', entry: join(dir, 'main.js') })?.name, 'nobody');
    });
  });
});
