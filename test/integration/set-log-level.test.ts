/**
 * `hstorm set-log-level`: nimbus records the level in the topology's
 * StormBase, every worker (a real process, LocalCluster) switches its loggers
 * to it — debug lines appear in the worker log — and `reset` goes back.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { silentLogger } from '../../common/logger.js';
import { loadConfiguredTopology, resolveModulePath } from '../../worker/index.js';
import { waitFor } from '../helpers/wait-for.js';

describe('set-log-level', function () {
  this.timeout(90_000);
  let cluster: LocalCluster | null = null;
  afterEach(async () => {
    await cluster?.shutdown();
    cluster = null;
  });

  it("switches every worker's log level, refuses a bad level, and resets", async () => {
    const c = (cluster = await LocalCluster.start({ log: silentLogger(), portsNeeded: 1, clusterConfig: { 'supervisor.gpu.discovery': 'none' } }));
    const modulePath = resolveModulePath(join(PACKAGE_ROOT, 'examples/word-count'), PACKAGE_ROOT);
    const { def, topologyConfig } = await loadConfiguredTopology(modulePath, { 'topology.workers': 1 });
    const { topologyId } = await c.submit('wc', modulePath, def, topologyConfig);
    await waitFor('a worker heartbeat', async () => (await c.heartbeats(topologyId)).length === 1, 60_000);
    const logFile = c.supervisors[0]!.workers()[0]!.logFile;
    const levelsSet = (): string[] =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"log level set"'))
        .map((l) => (JSON.parse(l) as { logLevel: string }).logLevel);

    await assert.rejects(c.setLogLevel('wc', 'loud'), /invalid log level "loud"; allowed: trace, debug, info, warn, error, fatal, silent, reset/);
    await c.setLogLevel('wc', 'debug', 60);
    await waitFor('the worker switched to debug', () => levelsSet().includes('debug'), 30_000);
    await c.setLogLevel('wc', 'reset');
    await waitFor('the worker went back to its own level', () => levelsSet().at(-1) === 'info', 30_000);
    assert.deepEqual(levelsSet(), ['debug', 'info']);
  });
});
