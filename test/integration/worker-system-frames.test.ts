/**
 * A worker process under forged ack-protocol frames: real worker processes
 * (local mode: nimbus and a supervisor in this process, workers as child
 * processes over ZeroMQ), an acking topology running, and a plain ZeroMQ PUSH
 * socket sending system tuples of the wrong shape or to the wrong task to a
 * worker's port — `[<acker task>, '__ack_ack', ['x', 'y']]` once ended the
 * worker with "Cannot mix BigInt and other types". Each must be counted in the
 * worker's heartbeat (droppedFrames) and dropped, the same process must go on
 * serving, and every message must still be acked.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zmq from 'zeromq';
import { LocalCluster } from '../../cli/local-cluster.js';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { silentLogger } from '../../common/logger.js';
import { encodeBatch, stampOf, type WireTuple, loadConfiguredTopology } from '../../worker/index.js';
import type { TopologyDetail, WorkerDetail } from '../../nimbus/views.js';
import { readAcked } from '../fixtures/acking-topology.js';
import { waitFor } from '../helpers/wait-for.js';

const ACKING = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'acking-topology.js');
const MESSAGES = 300;

describe('worker under forged ack-protocol frames (real worker processes, real ZeroMQ)', function () {
  this.timeout(120_000);
  let cluster: LocalCluster | null = null;
  let dir: string;

  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-sysframes-'))));
  afterEach(async () => {
    await cluster?.shutdown();
    cluster = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('drops and counts malformed or misdirected system tuples; the same worker keeps acking everything', async () => {
    cluster = await LocalCluster.start({ log: silentLogger(), clusterConfig: { 'nimbus.scheduler': 'even' }, portsNeeded: 2 });
    const overrides = { 'acking.dir': dir, 'acking.messages': MESSAGES, 'acking.rate': 60, 'acking.spouts': 1 };
    const { def, topologyConfig } = await loadConfiguredTopology(ACKING, overrides);
    await cluster.submit('forged', ACKING, def, topologyConfig);
    const c = cluster;
    const running = await waitFor(
      'both workers heartbeating and acks flowing',
      async () => {
        const d = await c.topologyDetail('forged');
        return d.workers.length === 2 && d.workers.every((w) => w.metrics !== null) && readAcked(dir, 0).size >= 10 ? d : null;
      },
      60_000,
      200,
    );
    const target = running.workers.find((w) => w.executors.some((e) => e.component === '__acker'))!;
    const tasksOf = (w: WorkerDetail, component: string): number[] => w.executors.filter((e) => e.component === component).flatMap((e) => e.tasks);
    const acker = tasksOf(target, '__acker')[0]!;
    const someTask = running.workers.flatMap((w) => w.executors.flatMap((e) => e.tasks)).find((t) => t !== acker)!;
    const bad: WireTuple[] = [
      [acker, someTask, '__ack_ack', ['x', 'y'], null], // the frame that killed the worker
      [acker, someTask, '__ack_ack', [1n], null],
      [acker, someTask, '__ack_init', [1n, 'y', 'spout'], null],
      [acker, someTask, '__ack_fail', [{ root: 1 }], null],
    ];
    // The acker's reply stream sent to every other task of that worker: a spout gets a reply of the wrong shape, a bolt one it never takes.
    for (const e of target.executors) if (e.component !== '__acker') for (const t of e.tasks) bad.push([t, acker, '__ack_ack', ['not a root'], null]);
    const before = target.metrics!;

    const push = new zmq.Push({ linger: 0 });
    push.connect(`tcp://127.0.0.1:${target.port}`);
    try {
      // Stamped as the topology's (a worker that is not assigned, at the current epoch: the fence admits it), so that each tuple meets the receiver's own checks.
      const stamp = stampOf(running.id, 'forger:1', running.epoch ?? 0);
      for (const t of bad) await push.send(encodeBatch(1, [t], stamp));
      const counted = await waitFor(
        'the forged tuples counted in the heartbeat',
        async () => {
          const w = workerAt(await c.topologyDetail('forged'), target);
          return w?.metrics && w.metrics.droppedFrames >= before.droppedFrames + bad.length ? w : null;
        },
        20_000,
        200,
      );
      assert.equal(counted.metrics!.pid, before.pid, 'the same worker process');
      assert.equal(counted.metrics!.droppedFrames, before.droppedFrames + bad.length, 'each forged tuple counted once');
    } finally {
      push.close();
    }

    await waitFor('every message acked', () => readAcked(dir, 0).size === MESSAGES, 60_000, 250);
    const end = workerAt(await c.topologyDetail('forged'), target);
    assert.equal(end?.metrics?.pid, before.pid, 'still the same worker process');
    assert.ok(end!.metrics!.heartbeatTime > before.heartbeatTime, 'it kept heartbeating');
  });
});

function workerAt(d: TopologyDetail, w: WorkerDetail): WorkerDetail | undefined {
  return d.workers.find((x) => x.supervisor === w.supervisor && x.port === w.port);
}
