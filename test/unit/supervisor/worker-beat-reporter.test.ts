/**
 * What a supervisor sends nimbus about its workers (supervisor/worker-beat-reporter.ts)
 * and what it writes to ZooKeeper about itself (supervisor/registration.ts):
 * - one report per period for all its workers, each with the age of its own
 *   local beat (a beat another pid wrote is left out), valid by the schema
 *   nimbus checks;
 * - a period that finds the previous send still in flight is skipped and
 *   counted, never queued; a failed send is counted and the next period tries;
 * - its ZooKeeper node is rewritten only when what it says changed, and
 *   whenever a write is asked for outright (a reconnect).
 */
import assert from 'node:assert/strict';
import { InMemoryClusterStore } from '../../../common/cluster-state/index.js';
import { silentLogger } from '../../../common/logger.js';
import type { NodeStats } from '../../../common/resources.js';
import { workerBeatsReportSchema, type WorkerBeatsReport } from '../../../common/worker-beats-report.js';
import { ZkPaths } from '../../../common/zk-paths.js';
import { SupervisorRegistration } from '../../../supervisor/registration.js';
import { WorkerBeatReporter } from '../../../supervisor/worker-beat-reporter.js';
import { nimbusBeatsSink } from '../../../supervisor/nimbus-beats-sink.js';
import type { ClusterState } from '../../../common/cluster-state.js';

describe('supervisor: worker beats to nimbus', () => {
  const running = [
    { topologyId: 't', port: 6700, pid: 11 },
    { topologyId: 't', port: 6701, pid: 12 },
    { topologyId: 'u', port: 6702, pid: 13 },
  ];
  const beats = new Map([
    [6700, { pid: 11, time: 9_500, epoch: 3 }],
    // The previous worker's beat on this port: says nothing of pid 12.
    [6701, { pid: 99, time: 9_900 }],
    [6702, { pid: 13, time: 8_000 }],
  ]);

  it('reports every running worker whose local beat is its own, with the beat\'s age', () => {
    const r = new WorkerBeatReporter({ supervisorId: 'sup-1', periodMs: 1000, running: () => running, localBeat: (p) => beats.get(p) ?? null, send: async () => undefined, log: silentLogger(), now: () => 10_000 });
    const report = r.report();
    assert.deepEqual(report, {
      type: 'worker-beats',
      version: 1,
      supervisorId: 'sup-1',
      workers: [
        { topologyId: 't', port: 6700, pid: 11, epoch: 3, ageMs: 500 },
        { topologyId: 'u', port: 6702, pid: 13, epoch: null, ageMs: 2000 },
      ],
    });
    assert.ok(workerBeatsReportSchema.safeParse(JSON.parse(JSON.stringify(report))).success, 'nimbus takes it');
  });

  it('skips a period while a send is in flight, and counts sends that fail', async () => {
    const sent: WorkerBeatsReport[] = [];
    let release: () => void = () => undefined;
    let fail = false;
    const r = new WorkerBeatReporter({
      supervisorId: 'sup-1',
      periodMs: 1000,
      running: () => running,
      localBeat: (p) => beats.get(p) ?? null,
      send: (rep) => {
        sent.push(rep);
        if (fail) return Promise.reject(new Error('nimbus away'));
        return new Promise<void>((res) => (release = res));
      },
      log: silentLogger(),
    });
    const first = r.tick();
    void r.tick();
    void r.tick();
    assert.equal(sent.length, 1, 'one send in flight, however many periods pass');
    assert.equal(r.counts.skipped, 2);
    release();
    await first;
    assert.equal(r.counts.sent, 1);
    fail = true;
    await r.tick();
    assert.equal(r.counts.failed, 1);
    fail = false;
    const again = r.tick();
    release();
    await again;
    assert.equal(r.counts.sent, 2, 'the next period sends again');
  });
});

describe('supervisor: its ZooKeeper node', () => {
  it('is rewritten only when what it says changed, and always when asked outright', async () => {
    const state = new InMemoryClusterStore().session();
    let node: NodeStats | null = null;
    const reg = new SupervisorRegistration(state, { id: 's1', host: 'h', ports: [6700], gpus: [], cpuCores: 2, memoryMB: 1024 }, 60_000, silentLogger(), () => node);
    await reg.start();
    try {
      const version = async () => (await state.exists(ZkPaths.supervisor('s1')))!.version;
      const v0 = await version();
      for (let i = 0; i < 5; i++) await reg.beat({ onlyIfChanged: true });
      assert.equal(await version(), v0, 'nothing new: no write');
      assert.equal(reg.counts.unchanged, 5);
      node = { collectedAt: 1 } as unknown as NodeStats;
      await reg.beat({ onlyIfChanged: true });
      assert.equal(await version(), v0 + 1, 'new collector figures: written');
      await reg.beat();
      assert.equal(await version(), v0 + 2, 'asked outright (a reconnect): written');
    } finally {
      await reg.stop();
    }
  });
});

describe('supervisor: the worker beats sink', () => {
  it('posts to the nimbus ZooKeeper names, and looks nimbus up again after a failure at most every 10 s', async () => {
    const store = new InMemoryClusterStore().session();
    await store.create(ZkPaths.nimbus, Buffer.from(JSON.stringify({ host: '10.0.0.9', port: 7000, startedAt: 1, version: 1 })));
    let lookups = 0;
    const state = Object.create(store) as ClusterState;
    state.get = (...a: Parameters<ClusterState['get']>) => (lookups++, store.get(...a));
    const urls: string[] = [];
    let up = true;
    const fetchImpl = ((url: string) => {
      urls.push(url);
      return Promise.resolve(new Response(null, { status: up ? 204 : 503 }));
    }) as unknown as typeof fetch;
    const clock = { now: 0 };
    const send = nimbusBeatsSink({ state, nimbusHost: '127.0.0.1', nimbusPort: 6627, fetchImpl, timeoutMs: 1000 }, () => clock.now);
    const report = { type: 'worker-beats' as const, version: 1 as const, supervisorId: 's1', workers: [] };
    for (let i = 0; i < 5; i++) await send(report);
    assert.equal(urls[0], 'http://10.0.0.9:7000/api/v1/supervisors/s1/worker-beats');
    assert.equal(lookups, 1, 'looked up once while nimbus answers');
    up = false;
    for (let t = 0; t < 30; t++) {
      clock.now = t * 1000;
      await assert.rejects(send(report), /HTTP 503/);
    }
    assert.equal(lookups, 3, 'a failing nimbus is looked up again every 10 s (at 10 s and 20 s here), not every send');
  });
});
