/**
 * A worker's two clocks (worker/worker-heartbeat.ts): its local beat (liveness,
 * for its supervisor to forward) every beat period, carrying its assignment
 * epoch; its metrics record in the store at start and every record period,
 * compact (deflated JSON) with bounded histograms — the same size after many
 * more executes.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryClusterStore } from '../../../common/cluster-state/index.js';
import { decodeJson, isCompact } from '../../../common/cluster-state/json-node.js';
import { readLocalHeartbeat } from '../../../common/local-heartbeat.js';
import { silentLogger } from '../../../common/logger.js';
import { workerHeartbeatSchema } from '../../../common/record-schemas.js';
import { ZkPaths } from '../../../common/zk-paths.js';
import { ExecutorMetricsRecorder } from '../../../worker/executor/executor-metrics.js';
import { WorkerHeartbeats, type MetricsSource } from '../../../worker/worker-heartbeat.js';
import { waitFor } from '../../helpers/wait-for.js';

describe('worker heartbeats: liveness and metrics on their own clocks', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hstorm-beats-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('beats locally every beat period with its epoch, and writes its record compact at start and every record period', async () => {
    const store = new InMemoryClusterStore().session();
    const metrics = new ExecutorMetricsRecorder('split', 3);
    const ex: MetricsSource = { metrics, queueDepth: 0, extraMetrics: () => undefined };
    const file = join(dir, '6700.beat');
    let epoch = 4;
    const beats = new WorkerHeartbeats({
      store,
      launch: { topologyId: 't', supervisorId: 's', host: '127.0.0.1', port: 6700, modulePath: '/m.js', state: 'ipc', clusterConfig: {}, gpu: null, localHeartbeatFile: file },
      log: silentLogger(),
      epoch: () => epoch,
      dropped: () => 0,
      executors: [ex],
      load: null,
    });
    const path = ZkPaths.workerbeat('t', 's', 6700);
    // Phase 1: the first periodic record a whole period after start. A random
    // phase (the default) can fall within the wait below on a loaded machine.
    await beats.start(20, 60_000, 1);
    try {
      const first = await store.get(path);
      assert.ok(isCompact(first.data), 'written compact');
      assert.equal(decodeJson(path, first.data, workerHeartbeatSchema).executors[0]?.task, 3);
      const t0 = readLocalHeartbeat(file)!;
      assert.equal(t0.epoch, 4);
      epoch = 5;
      await waitFor('a later local beat with the new epoch', () => {
        const b = readLocalHeartbeat(file);
        return b !== null && b.time > t0.time && b.epoch === 5;
      }, 10_000, 10);
      assert.equal((await store.get(path)).stat.version, first.stat.version, 'no record written between record periods');
    } finally {
      beats.stop();
    }
  });

  it('keeps the record the same size however many executes it has counted', async () => {
    const store = new InMemoryClusterStore().session();
    const metrics = new ExecutorMetricsRecorder('count', 1);
    const beats = new WorkerHeartbeats({
      store,
      launch: { topologyId: 't', supervisorId: 's', host: '127.0.0.1', port: 6700, modulePath: '/m.js', state: 'ipc', clusterConfig: {}, gpu: null },
      log: silentLogger(),
      epoch: () => 1,
      dropped: () => 0,
      executors: [{ metrics, queueDepth: 0, extraMetrics: () => undefined }],
      load: null,
    });
    const sizes: number[] = [];
    let x = 1;
    for (const n of [20_000, 2_000_000]) {
      while (metrics.executed < n) {
        x = (x * 16807) % 2147483647;
        metrics.countExecute(0.001 * 10 ** (6 * (x / 2147483647) ** 2));
        metrics.recordComplete(0.01 * 10 ** (5 * (x / 2147483647) ** 3));
      }
      sizes.push(JSON.stringify(beats.record()).length);
    }
    // Counters gain digits (a few per number); histograms gain no entries.
    assert.ok(sizes[1]! <= sizes[0]! + 200, `record ${sizes.join(' → ')} bytes`);
  });
});
