import assert from 'node:assert/strict';
import { formatDetail, formatList } from '../../../cli/describe-format.js';
import type { ComponentStats, QueueView, TopologyDetail, TopologySummary } from '../../../nimbus/views.js';

function stats(kind: ComponentStats['kind'], extra: Partial<ComponentStats> = {}): ComponentStats {
  return {
    unplacedTargets: [],
    kind,
    gpu: false,
    executors: 1,
    emitted: 0,
    transferred: 0,
    executed: 0,
    acked: 0,
    failed: 0,
    ticks: 0,
    staleTuples: 0,
    executeLatencyMs: null,
    completeLatencyMs: null,
    completeLatencyP50Ms: null,
    completeLatencyP99Ms: null,
    capacity: 0,
    backends: [],
    fallback: false,
    fallbackReasons: [],
    gpuKernels: null,
    split: null,
    window: null,
    state: null,
    lastError: null,
    ...extra,
  };
}

function detail(components: Record<string, ComponentStats>, queue: QueueView | null = null): TopologyDetail {
  return {
    id: 't-1-1',
    name: 't',
    status: 'active',
    launchTime: 0,
    uptimeSecs: 5,
    epoch: 1,
    scheduler: 'hetero',
    workersRequested: 1,
    gpuWorkersRequested: 0,
    code: { kind: 'path', path: '/x.js' },
    killWaitSecs: null,
    resources: { holds: { cpu: 0.4, memoryMB: 512, gpuMemoryMB: 4096 }, dominantShare: 0.5, dominantResource: 'gpu memory', shares: { cpu: 0.05, memory: 0.02, gpuMemory: 0.5 } },
    queue,
    workers: [],
    components,
    unassigned: [],
    config: {},
    crashLooping: false,
  };
}

describe('describe output', () => {
  it('shows user metrics of every kind per component', () => {
    const userMetrics = {
      counters: { lines: 7 },
      gauges: { backlog: { min: 5, max: 9, mean: 7, byTask: { 1: 5, 2: 9 } } },
      histograms: { size: { count: 8, mean: 26.5, p50: 2, p99: 100, max: 100 } },
      meters: { bytes: { count: 20, meanRate: 4, m1Rate: 3 } },
    };
    const out = formatDetail(detail({ read: stats('spout', { userMetrics }), sink: stats('bolt') }));
    assert.match(out, /user metrics:\n {2}read\n {4}counters: lines 7\n {4}gauges: backlog 5\.\.9 \(mean 7\)\n {4}histograms: size count 8 p50 2 p99 100 max 100\n {4}meters: bytes count 20 rate 4\/s \(1 min 3\/s\)/);
    assert.doesNotMatch(out, /\n {2}sink\n {4}counters/);
  });

  it('counts tick tuples apart from the data tuples', () => {
    const out = formatDetail(detail({ rolling: stats('bolt', { executed: 40, ticks: 9 }), total: stats('bolt', { executed: 3 }) }));
    assert.match(out, /tick tuples \(counted apart from the tuples above\): rolling 9\n/);
    assert.doesNotMatch(out, /total \d/);
  });

  it("shows each component's last error with its task, host, port and first stack frames", () => {
    const out = formatDetail(
      detail({
        split: stats('bolt', { failed: 12, lastError: { error: 'execute threw; failing the tuple: TypeError: boom\n    at Split.execute (file:///t/index.ts:9:3)', time: Date.UTC(2026, 0, 2), host: 'h1', port: 6701, task: 4 } }),
        count: stats('bolt'),
      }),
    );
    assert.match(out, /last error per component:\n {2}split \(task 4 on h1:6701, 2026-01-02T00:00:00\.000Z\): execute threw; failing the tuple: TypeError: boom\n {4}at Split\.execute \(file:\/\/\/t\/index\.ts:9:3\)/);
    assert.doesNotMatch(out, /count \(task/);
  });

  it('shows stale tuples per component, and per worker the frames fenced, stale tuples dropped and paused spouts (issue 28)', () => {
    const d = detail({ source: stats('spout'), relay: stats('bolt', { staleTuples: 340 }), sink: stats('bolt') });
    const metrics = { pid: 1, uptimeSecs: 9, rssMB: 80, droppedFrames: 12, heartbeatTime: 0, epoch: 1, emitted: 0, transferred: 0, acked: 0, failed: 0, backpressure: null };
    const worker = (supervisor: string, m: Partial<typeof metrics & { staleFrames: number; staleTuples: number; spoutsPaused: boolean }>) => ({
      supervisor, host: 'h', port: 6700, gpu: null, executors: [], reason: '', resources: null, liveness: 'alive' as const, exits: null,
      metrics: { ...metrics, staleFrames: 0, staleTuples: 0, spoutsPaused: false, ...m },
    });
    d.workers = [worker('sup-b', { staleFrames: 12, staleTuples: 340 }), worker('sup-c', { spoutsPaused: true }), worker('sup-d', {})];
    const text = formatDetail(d);
    assert.match(text, /stale tuples dropped unexecuted \(their trees had timed out at the spouts, which replay them\): relay 340\n/);
    assert.match(text, /partitions \(fencing and stale tuples\):\n {2}sup-b:6700: 12 frame\(s\) from stranded workers fenced; 340 stale tuple\(s\) dropped\n {2}sup-c:6700: SPOUTS PAUSED/);
    assert.doesNotMatch(text, /sup-d:6700:/, 'a worker with nothing to report is left out');
    assert.doesNotMatch(formatDetail(detail({ sink: stats('bolt') })), /stale|partitions/);
  });

  it('says a topology and its worker crash-loop, with the exit and the last error from the log', () => {
    const d = detail({ source: stats('spout') });
    d.crashLooping = true;
    d.workers = [
      {
        supervisor: 'sup-1', host: 'h1', port: 6700, gpu: null, executors: [{ component: 'source', tasks: [1] }], reason: '', resources: null, liveness: 'starting', metrics: null,
        exits: { topologyId: 't-1-1', port: 6700, deaths: 4, fastDeaths: 4, crashLooping: true, lastExit: { code: 1, signal: null, time: Date.UTC(2026, 0, 2) }, lastError: 'worker failed to start: Error: no such table\n    at Source.open (file:///t/index.ts:4:11)' },
      },
    ];
    const text = formatDetail(d);
    assert.match(text, /status active \(crash-looping\)/);
    assert.match(text, /sup-1\s+h1:6700\s+-\s+crash-looping/);
    assert.match(text, /sup-1:6700: CRASH-LOOPING \(4 deaths in a row within seconds of starting\); last exit code 1 at 2026-01-02T00:00:00\.000Z\n {4}last error: worker failed to start: Error: no such table\n {6}at Source\.open/);
    const row: TopologySummary = { id: 't-1-1', name: 't', status: 'active', uptimeSecs: 5, workersRequested: 1, workers: 1, gpuWorkersRequested: 0, gpuWorkers: 0, executors: 1, unassigned: 0, epoch: 1, scheduler: 'even', dominantShare: 0, queue: null, crashLoopingWorkers: 1 };
    assert.match(formatList([row]), /t\s+t-1-1\s+active \(crash-looping\)/);
  });

  it('shows γ, δ and both latencies of a split spout', () => {
    const split = { gamma: 0.7912, delta: 0.8011, latCpuMs: 171.2, latGpuMs: 42.5, theta: 0.3, policy: 'latency', windows: 24, sentCpu: 40, sentGpu: 150, controller: true };
    const text = formatDetail(detail({ source: stats('spout', { split }), cpu: stats('bolt') }));
    assert.match(text, /adaptive split/);
    assert.match(text, /source\s+0\.791\s+0\.801\s+171\.2\s+42\.5\s+0\.30\s+latency\s+24\s+40\s+150/);
    assert.match(text, /γ=0\.791/);
    assert.doesNotMatch(text, /GPU bolts/);
  });

  it('says which side of a split has no running task since when and why, and counts the tuples failed towards an unplaced component', () => {
    const since = Date.UTC(2026, 10, 25, 12, 3, 4);
    const sides = {
      cpu: { components: ['cpu-dealer'], running: 2, downSince: null, reason: null },
      gpu: { components: ['gpu-dealer'], running: 0, downSince: since, reason: 'no running task of gpu-dealer: no GPU slot' },
    };
    const split = { gamma: 0, delta: null, latCpuMs: null, latGpuMs: null, theta: 0.9, policy: 'latency', windows: 3, sentCpu: 90, sentGpu: 0, controller: true, sides };
    const unplacedTargets = [{ component: 'gpu-dealer', stream: 'gpu', tuples: 12, reason: 'no GPU slot' }];
    const text = formatDetail(detail({ reader: stats('spout', { split, unplacedTargets }), 'cpu-dealer': stats('bolt') }));
    assert.match(text, /reader: GPU side: no running task since 2026-11-25T12:03:04\.000Z \(no running task of gpu-dealer: no GPU slot\); it gets no tuples/);
    assert.doesNotMatch(text, /CPU side: no running task/);
    assert.match(text, /tuples failed at once \(their target has no running task\):\n {2}reader: 12 tuples to gpu-dealer on stream gpu: not placed \(no GPU slot\)/);
  });

  it('shows each stateful bolt and the checkpoint spout: last committed transaction, checkpoint time, keys, recoveries', () => {
    const bolt = { role: 'bolt' as const, provider: 'redis' as const, lastCommittedTxid: 41, commits: 82, checkpointMs: { count: 82, mean: 2.1, p50: 1.9, p99: 7.25, max: 9 }, keys: 1234, recoveries: 1, failures: 2, heldAcks: 17, corruptEntries: 0, phase: null, tasks: 2 };
    const cp = { ...bolt, role: 'checkpoint' as const, lastCommittedTxid: 41, commits: 41, keys: null, heldAcks: 0, phase: 'PREPARE 42', tasks: 1 };
    const text = formatDetail(detail({ count: stats('bolt', { state: bolt }), __checkpointspout: stats('spout', { state: cp }), sink: stats('bolt') }));
    assert.match(text, /state \(redis; checkpoint PREPARE 42;/);
    assert.match(text, /count\s+41\s+82\s+1\.9\d*\s+7\.25\s+1234\s+17\s+1\s+2\s+0/);
    assert.match(text, /__checkpointspout\s+41\s+41\s+1\.9\d*\s+7\.25\s+-\s+-\s+1\s+2\s+-/);
    assert.doesNotMatch(text.split('state (')[1]!, /\bsink\b/);
  });

  it('shows each windowed bolt: its window, windows evaluated, tuples per window, held, late tuples and watermark lag', () => {
    const window = { spec: 'sliding 30 s every 5 s, event time (ts), lag 2 s', eventTime: true, windows: 41, failedWindows: 1, meanWindowTuples: 123.456, maxWindowTuples: 200, held: 57, lateDropped: 3, lateRouted: 0, watermarkLagMs: 2140 };
    const counted = { ...window, spec: 'tumbling 5 tuples', eventTime: false, watermarkLagMs: null, lateDropped: 0 };
    const text = formatDetail(detail({ avg: stats('bolt', { window }), top: stats('bolt', { window: counted }), sink: stats('bolt') }));
    assert.match(text, /windowed bolts \(summed over tasks/);
    assert.match(text, /avg\s+sliding 30 s every 5 s, event time \(ts\), lag 2 s\s+41\s+1\s+123\.5\s+200\s+57\s+3\s+0\s+2140\.0/);
    assert.match(text, /top\s+tumbling 5 tuples\s+41\s+1\s+123\.5\s+200\s+57\s+-\s+-\s+-/);
    assert.doesNotMatch(text, /sink\s+-/);
  });

  it('says how many of the GPU workers asked for are placed, beside the worker count', () => {
    const d = { ...detail({ reader: stats('spout') }), gpuWorkersRequested: 2 };
    assert.match(formatDetail(d), /workers 0\/1 \(GPU 0\/2\)/);
    assert.doesNotMatch(formatDetail(detail({ reader: stats('spout') })), /\(GPU /, 'nothing for a topology without GPU workers');
  });

  it('says which backend a GPU bolt ran on, and when it fell back to a CPU backend', () => {
    const text = formatDetail(
      detail({
        onGpu: stats('bolt', { gpu: true, backends: ['webgpu'] }),
        fellBack: stats('bolt', { gpu: true, backends: ['webasm'], fallback: true, fallbackReasons: ['no Vulkan loader'] }),
        waiting: stats('bolt', { gpu: true }),
      }),
    );
    assert.match(text, /\nonGpu +webgpu /);
    assert.match(text, /fellBack: FELL BACK to a CPU backend: no Vulkan loader/);
    assert.match(text, /\nwaiting +no launch yet /);
    assert.match(text, /webasm \(fallback\)/);
    assert.doesNotMatch(text, /adaptive split/);
  });

  it('shows kernel time, time in flight, the adapter, a software adapter and an unverified board', () => {
    const lat = (p50: number, p99: number) => ({ count: 10, mean: p50, p50, p99, max: p99 });
    const adapter = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe (LLVM 15)', description: 'llvmpipe', software: true, identity: 'adapter "llvmpipe (LLVM 15)" (the only one)', identityVerified: true };
    const h100 = { ...adapter, vendor: 'nvidia', architecture: 'hopper', device: 'NVIDIA H100', software: false, identity: 'NVIDIA H100 (GPU GPU-1 assigned)', identityVerified: false };
    const kernels = (ran: string, a: typeof adapter) => ({
      backends: ['webgpu'], ran: [ran], adapters: [a], onGpu: true, onHardwareGpu: !a.software, fallback: false, fallbackReasons: [],
      launches: 12, failedLaunches: 1, kernelMs: lat(4.5, 9.25), inFlightMs: lat(20, 41), devicesLost: 1, deviceErrors: 2,
    });
    const text = formatDetail(
      detail({
        soft: stats('bolt', { gpu: true, backends: ['webgpu'], gpuKernels: kernels('webgpu (software adapter: llvmpipe (LLVM 15))', adapter) }),
        hard: stats('bolt', { gpu: true, backends: ['webgpu'], gpuKernels: kernels('webgpu (NVIDIA H100)', h100) }),
      }),
    );
    assert.match(text, /\nsoft +webgpu \(software adapter: llvmpipe \(LLVM 15\)\) +12 +1 +4\.50 +9\.25 +20\.0 +41\.0 +1\/2/);
    assert.match(text, /soft: runs on a software WebGPU adapter \(a CPU\)/);
    assert.match(text, /\nhard +webgpu \(NVIDIA H100\) /);
    assert.match(text, /hard: GPU identity not verified: NVIDIA H100 \(GPU GPU-1 assigned\)/);
    assert.doesNotMatch(text, /hard: runs on a software/);
  });

  it('shows what a topology holds, its dominant share, and why it waits in the HDRF queue', () => {
    const queue: QueueView = {
      state: 'reserved',
      waitSecs: 75,
      reservedSecs: 15,
      dominantShare: 0,
      needs: '2 workers (2 GPU × 4096 MB), 0.3 cores, 384 MB',
      blockedBy: null,
      reason: 'reserved since 15 s: needs 2 workers (2 GPU × 4096 MB), 0.3 cores, 384 MB; short of GPU slots (needs 2, 1 free with a port beside them)',
    };
    const text = formatDetail(detail({ source: stats('spout') }, queue));
    assert.match(text, /resources: holds 0\.4 cores, 512 MB, 4096 MB GPU memory; dominant share 0\.50 \(gpu memory\)/);
    assert.match(text, /HDRF queue: reserved since 15 s: needs 2 workers \(2 GPU × 4096 MB\)/);
    assert.doesNotMatch(text, /HDRF queue: reserved 15s/, "the reason says how long; the line does not say it twice");

    const row = (name: string, q: QueueView | null, share: number): TopologySummary => ({
      id: `${name}-1-1`, name, status: 'active', uptimeSecs: 75, workersRequested: 2, workers: q ? 0 : 2, gpuWorkersRequested: 0, gpuWorkers: 0, executors: 4,
      unassigned: q ? 4 : 0, epoch: 1, scheduler: 'hdrf', dominantShare: share, queue: q, crashLoopingWorkers: 0,
    });
    const list = formatList([row('a', null, 0.5), row('b', queue, 0)]);
    assert.match(list, /DOM SHARE\s+QUEUE/);
    assert.match(list, /a\s+a-1-1\s+active\s+75s\s+2\/2\s+4\s+0\s+0\.50\s+-\n/);
    assert.match(list, /b\s+b-1-1\s+active\s+75s\s+0\/2\s+4\s+4\s+0\.00\s+reserved 15s \(waiting 75s\)/);
    assert.match(list, /HDRF queue:\n {2}b: reserved since 15 s/);
  });
});
