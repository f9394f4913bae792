/**
 * supervisor.worker.user: the supervisor starts its workers as another user
 * (here `nobody`), and the topology still runs — word count over two workers
 * with CURVE links, the spouts' tuples acked. A supervisor that is not root
 * cannot switch users and refuses at start, naming the key; so does an
 * unknown user, and a data dir that user cannot search (its workers could
 * not write their heartbeat). That they then run for good, without restarts:
 * secrets-and-worker-user.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { ConfigError } from '../../common/errors.js';
import { silentLogger } from '../../common/logger.js';
import { loadConfiguredTopology } from '../../worker/index.js';
import { waitFor } from '../helpers/wait-for.js';

const log = silentLogger();

/** The real uid of a process, from /proc. */
function uidOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('Uid:'));
  return Number(line?.split(/\s+/)[1]);
}

describe('workers as another user (supervisor.worker.user)', function () {
  this.timeout(90_000);
  let cluster: LocalCluster | null = null;
  afterEach(async () => {
    await cluster?.shutdown();
    cluster = null;
  });

  it('refuses an unknown user at start, naming the key', async () => {
    await assert.rejects(
      LocalCluster.start({ log, portsNeeded: 1, clusterConfig: { 'supervisor.worker.user': 'no-such-user-hstorm' } }),
      (err: unknown) => err instanceof ConfigError && err.key === 'supervisor.worker.user' && /no user "no-such-user-hstorm"/.test(err.message),
    );
  });

  it('refuses, as root, a data dir the worker user cannot search, naming the key and the path (not root: refuses as above)', async () => {
    const locked = mkdtempSync(join(tmpdir(), 'hstorm-locked-')); // 0700, root's
    try {
      const clusterConfig = { 'supervisor.worker.user': 'nobody', 'supervisor.gpu.discovery': 'none' };
      await assert.rejects(LocalCluster.start({ log, portsNeeded: 1, dataDir: join(locked, 'data'), clusterConfig }), (err: unknown) =>
        process.getuid?.() === 0
          ? err instanceof ConfigError && err.key === 'supervisor.worker.user' && /cannot reach .*hstorm-locked-.*data.*not searchable by that user/.test(err.message)
          : err instanceof ConfigError && /needs a supervisor running as root/.test(err.message),
      );
    } finally {
      rmSync(locked, { recursive: true, force: true });
    }
  });

  it('runs the workers as that user: word count over CURVE links, every spout tuple acked (root), or refuses to start (not root)', async () => {
    const nobody = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
    const clusterConfig = { 'supervisor.worker.user': 'nobody', 'hstorm.messaging.curve': true, 'supervisor.gpu.discovery': 'none' };
    if (process.getuid?.() !== 0) {
      await assert.rejects(LocalCluster.start({ log, portsNeeded: 2, clusterConfig }), (err: unknown) => err instanceof ConfigError && /needs a supervisor running as root/.test(err.message));
      return;
    }
    cluster = await LocalCluster.start({ log, portsNeeded: 2, clusterConfig });
    const module = join(PACKAGE_ROOT, 'dist', 'examples', 'word-count', 'index.js');
    const perSpout = 100;
    const { def, topologyConfig } = await loadConfiguredTopology(module, { 'topology.workers': 2, 'wordcount.sentences': perSpout, 'wordcount.parallelism.spout': 2 });
    const { topologyId } = await cluster.submit('wc', module, def, topologyConfig);
    const c = cluster;
    const beats = await waitFor(
      'every spout tuple acked',
      async () => {
        const b = await c.heartbeats(topologyId);
        const acked = b.flatMap((w) => w.executors).filter((e) => e.component === 'sentences').reduce((n, e) => n + e.acked, 0);
        return b.length === 2 && acked === 2 * perSpout ? b : null;
      },
      60_000,
      250,
    );
    for (const b of beats) assert.equal(uidOf(b.pid), nobody, `worker ${b.pid} runs as nobody`);
    assert.notEqual(uidOf(process.pid), nobody);
  });
});
