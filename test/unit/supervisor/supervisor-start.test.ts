/**
 * A supervisor whose store goes away right after it registered (a ZooKeeper
 * restart, a lost connection) keeps running and reads the assignments once
 * the store is back. A soak run of the ZooKeeper-restart test saw the daemon
 * exit instead: "hstorm: ZooKeeper children /assignments: CONNECTION_LOSS".
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryClusterStore } from '../../../common/cluster-state/in-memory-store.js';
import { ClusterStateError, type ClusterState } from '../../../common/cluster-state.js';
import { buildConfig } from '../../../common/config/index.js';
import { silentLogger } from '../../../common/logger.js';
import { ZkPaths } from '../../../common/zk-paths.js';
import { Supervisor } from '../../../supervisor/supervisor.js';
import { freePort } from '../../helpers/ports.js';
import { waitFor } from '../../helpers/wait-for.js';

describe('supervisor start with a store that drops out after registering', () => {
  let dir: string;
  let sup: Supervisor | null = null;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hstorm-sup-start-'));
  });
  afterEach(async () => {
    await sup?.stop();
    sup = null;
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps running and reads the assignments when the store answers again', async () => {
    const store = new InMemoryClusterStore();
    const session = store.session();
    // The first read of /assignments meets a lost connection, as when ZooKeeper stops just after registration.
    const reads: ('refused' | 'answered')[] = [];
    const flaky = new Proxy(session, {
      get(target, prop) {
        if (prop === 'children') {
          return (path: string, watcher?: Parameters<ClusterState['children']>[1]) => {
            if (path !== ZkPaths.assignments) return target.children(path, watcher);
            if (reads.length === 0) {
              reads.push('refused');
              return Promise.reject(new ClusterStateError('CONNECTION_LOSS', path, `ZooKeeper children ${path}: CONNECTION_LOSS`));
            }
            return target.children(path, watcher).then((ids) => (reads.push('answered'), ids));
          };
        }
        const v: unknown = Reflect.get(target, prop, target);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }) as ClusterState;
    const config = buildConfig(
      [
        {
          'hstorm.local.dir': dir,
          'supervisor.id': 'sup-start',
          'supervisor.slots.ports': [await freePort()],
          'supervisor.gpu.discovery': 'none',
          'supervisor.logviewer.port': null,
        },
      ],
      { allowUserKeys: false },
    );
    sup = new Supervisor({ state: flaky, config, log: silentLogger() });
    await sup.start();
    assert.equal(reads[0], 'refused', 'the first read of the assignments was refused');
    assert.ok(await session.exists(ZkPaths.supervisor('sup-start')), 'registered');
    // The store comes back (a new session, as after a ZooKeeper restart): the supervisor reads the assignments.
    const before = reads.length;
    for (const id of store.sessionIds()) store.expireSession(id);
    await waitFor('the assignments read once the store is back', () => reads.slice(before).includes('answered'), 30_000, 20);
    assert.ok(await session.exists(ZkPaths.supervisor('sup-start')), 'still registered');
  });
});
