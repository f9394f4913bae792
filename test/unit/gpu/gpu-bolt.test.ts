import assert from 'node:assert/strict';
import { GpuKernelRunner } from '../../../topology-sdk/internal/gpu-kernel-runner.js';
import type { GpuBackendHandle, GpuBackendName, GpuDeviceMonitor, GpuDeviceStats } from '../../../topology-sdk/gpu-backend-handle.js';
import { backendOfMode } from '../../../topology-sdk/internal/gpu-kernel-runner.js';
import type { OutputCollector, Values } from '../../../topology-sdk/components.js';
import { readEmitArgs } from '../../../topology-sdk/internal/emit-args.js';
import type { BatchInputs } from '../../../topology-sdk/internal/gpu-batch.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { tickTuple } from '../../../worker/executor/tick-source.js';
import type { Tuple } from '../../../topology-sdk/tuple.js';
import { Fields } from '../../../topology-sdk/fields.js';
import type { GpuMetrics } from '../../../common/storm-base.js';
import { WorkerGpuBackends, type GpuBackendProbes } from '../../../worker/gpu/gpu-backend.js';
import { GpuMultiplyBolt, matmulKernel } from '../../../examples/matmul/gpu-multiply-bolt.js';
import { checksumMatches, expectedProductSum, multiply, randomMatrix, seededRandom } from '../../../examples/matmul/matrix.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { waitFor } from '../../helpers/wait-for.js';

const N = 64;
const noGpu: Partial<GpuBackendProbes> = {
  webgpu: () => Promise.resolve({ ok: false, reason: 'the webgpu package does not load (GLIBCXX_3.4.32 not found)' }),
  headlessgl: () => Promise.resolve({ ok: false, reason: 'the gl package is not installed' }),
};

function handle(backend: GpuBackendName, requested: GpuBackendName = backend, monitor: GpuDeviceMonitor | null = null): GpuBackendHandle {
  return { backend, requested, fallback: backend !== requested, fallbackReason: null, device: backend === 'webgpu' ? 'test adapter' : null, adapter: null, monitor, cpuBackend: 'webasm', cpuThreads: () => 2 };
}

/** A device monitor whose guard answers from `script` (one entry per launch), counting losses as told. */
function scriptedMonitor(script: ((launch: () => Promise<unknown>) => Promise<unknown>)[]): GpuDeviceMonitor & { stats(): GpuDeviceStats; lost: number; calls: number } {
  const m = {
    lost: 0,
    calls: 0,
    guard<T>(launch: () => Promise<T>): Promise<T> {
      const step = script[m.calls++] ?? ((l: () => Promise<unknown>) => l());
      return step(launch) as Promise<T>;
    },
    stats: (): GpuDeviceStats => ({ devices: 1 + m.lost, lost: m.lost, lastLost: m.lost ? 'destroyed: test' : null, errors: 0, lastError: null }),
  };
  return m;
}

/**
 * Runs `fn` with a placeholder `navigator.gpu`, so that gpu.js constructs WebGPU kernels
 * (the scripted guards answer in place of running them).
 */
async function withPlaceholderWebGpu(fn: () => Promise<void>): Promise<void> {
  const g = globalThis as { navigator?: object };
  const hadNavigator = g.navigator !== undefined;
  if (!hadNavigator) Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true, writable: true });
  const saved = Object.getOwnPropertyDescriptor(g.navigator!, 'gpu');
  Object.defineProperty(g.navigator, 'gpu', { value: { requestAdapter: () => Promise.resolve(null) }, configurable: true, writable: true });
  try {
    await fn();
  } finally {
    if (saved) Object.defineProperty(g.navigator, 'gpu', saved);
    else delete (g.navigator as { gpu?: unknown }).gpu;
    if (!hadNavigator) delete g.navigator;
  }
}

/** What gpu.js returns for a launch of [n, n, batch]: zeros (the guard answered without running the kernel). */
function zeros(n: number, batch: number): Float32Array[][] {
  return Array.from({ length: batch }, () => Array.from({ length: n }, () => new Float32Array(n)));
}

function assertClose(actual: Float32Array, expected: Float32Array, what: string): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) {
    const tol = 1e-4 * (1 + Math.abs(expected[i]!));
    if (Math.abs(actual[i]! - expected[i]!) > tol) assert.fail(`${what}: element ${i} is ${actual[i]}, expected ${expected[i]}`);
  }
}

const FIELDS = new Fields(['id', 'n', 'a', 'b', 'expected']);
function matrixTuples(count: number, seed = 7): Tuple[] {
  const rand = seededRandom(seed);
  return Array.from({ length: count }, (_, id) => {
    const a = randomMatrix(N, rand);
    const b = randomMatrix(N, rand);
    return new RuntimeTuple([id, N, a, b, expectedProductSum(a, b, N)], FIELDS, 'matrices', 'default', 1, [id + 1, 0, 1, 0]);
  });
}

interface Recorded {
  emitted: { values: Values; anchors: unknown }[];
  acked: Tuple[];
  failed: Tuple[];
}
function recordingCollector(): OutputCollector & Recorded {
  const r: Recorded = { emitted: [], acked: [], failed: [] };
  return {
    ...r,
    emit(a: unknown, b?: unknown, c?: unknown) {
      const e = readEmitArgs('bolt', 'gpu', a, b, c);
      r.emitted.push({ values: e.values, anchors: e.anchors });
      return [2];
    },
    emitDirect() {},
    resetTimeout() {},
    ack: (t: Tuple) => void r.acked.push(t),
    fail: (t: Tuple) => void r.failed.push(t),
    reportError() {},
  };
}

async function preparedBolt(bolt: GpuMultiplyBolt, conf: Record<string, unknown>, gpu: typeof noGpu | null = null) {
  const backends = new WorkerGpuBackends(gpu ? { gpuId: 'GPU-1', name: 'NVIDIA H200', source: 'nvidia-smi' } : null, 2, fakeContext().log, gpu ?? {});
  const ctx = fakeContext({ component: 'multiply', gpuBackend: () => backends.acquire('auto') });
  const out = recordingCollector();
  await bolt.prepare({ 'matmul.dim': N, ...conf }, ctx, out);
  return { ctx, out };
}

/** The shared poll (test/helpers/wait-for.ts), at a short interval: these conditions come within milliseconds. */
async function until(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  await waitFor(what, cond, ms, 2);
}

describe('GpuKernelRunner', function () {
  this.timeout(60_000);

  for (const backend of ['webasm', 'cpu'] as const) {
    it(`${backend}: a batched 64×64 matmul equals the plain-JS product, padding hidden, backend read from the kernel`, async () => {
      const runner = await GpuKernelRunner.create(matmulKernel(N), 4, handle(backend));
      try {
        const rand = seededRandom(3);
        const as = [0, 1, 2].map(() => randomMatrix(N, rand));
        const bs = [0, 1, 2].map(() => randomMatrix(N, rand));
        const launch = () => {
          const batch = runner.batchInputs();
          return runner.run([batch.pack(as, [N, N]), batch.pack(bs, [N, N])], 3);
        };
        await launch();
        const result = await launch();
        for (let i = 0; i < 3; i++) assertClose(result.item(i), multiply(as[i]!, bs[i]!, N), `${backend} item ${i}`);
        assert.throws(() => result.item(3), RangeError);
        const m = runner.metrics();
        assert.equal(runner.backend, backend);
        assert.deepEqual([m.backend, m.fallback, m.launches, m.tuples, m.batchFill, m.batchSize], [backend, false, 2, 6, 0.75, 4]);
        assert.ok(m.kernelMs.count === 1 && m.kernelMs.max > 0, 'the compiling first launch is not timed');
      } finally {
        runner.destroy();
      }
    });
  }

  it('webasm launches run off the main thread: timers keep firing during a long launch', async () => {
    const n = 256;
    const runner = await GpuKernelRunner.create(matmulKernel(n), 4, handle('webasm'));
    try {
      const rand = seededRandom(9);
      const as = [0, 1, 2, 3].map(() => randomMatrix(n, rand));
      const bs = [0, 1, 2, 3].map(() => randomMatrix(n, rand));
      const launch = () => {
        const batch = runner.batchInputs();
        return runner.run([batch.pack(as, [n, n]), batch.pack(bs, [n, n])], 4);
      };
      await launch(); // compile
      // Counted, not timed: a launch computed on the main thread (even behind a promise) lets no timer run until it
      // is done, so zero or one tick lands while it is pending; one in a worker thread lets them run throughout. A
      // bound on the largest gap between ticks would fail on a loaded machine, where the OS deschedules this thread.
      let ticks = 0;
      const tick = setInterval(() => ticks++, 1);
      let pendingTicks = -1;
      await launch().then(() => (pendingTicks = ticks));
      clearInterval(tick);
      assert.ok(pendingTicks >= 3, `only ${pendingTicks} timer ticks ran while a ${n}×${n} launch was pending`);
    } finally {
      runner.destroy();
    }
  });

  it('a kernel the GPU backend cannot run is rebuilt on the CPU backend, and the fallback is reported', async () => {
    // No navigator.gpu in this process, so a webgpu kernel fails at its first launch.
    const g = globalThis as { navigator?: { gpu?: unknown } };
    const nav = g.navigator;
    const saved = nav && Object.getOwnPropertyDescriptor(nav, 'gpu');
    if (nav) Object.defineProperty(nav, 'gpu', { value: undefined, configurable: true, writable: true });
    const ctx = fakeContext();
    const runner = await GpuKernelRunner.create(matmulKernel(N), 2, handle('webgpu'), ctx.log);
    try {
      const rand = seededRandom(5);
      const a = randomMatrix(N, rand);
      const b = randomMatrix(N, rand);
      const batch = runner.batchInputs();
      const result = await runner.run([batch.pack([a], [N, N]), batch.pack([b], [N, N])], 1);
      assertClose(result.item(0), multiply(a, b, N), 'after fallback');
      const m = runner.metrics();
      assert.equal(m.backend, 'webasm');
      assert.equal(m.requestedBackend, 'webgpu');
      assert.equal(m.fallback, true);
      assert.match(m.fallbackReason!, /webgpu kernel failed/);
      assert.equal(m.device, null, 'a CPU run names no GPU');
      assert.ok(ctx.logged.some((l) => l.level === 'warn'));
    } finally {
      runner.destroy();
      if (nav && saved) Object.defineProperty(nav, 'gpu', saved);
      else if (nav) delete nav.gpu;
    }
  });
  it('reports no backend as run before the first launch, and what ran after it', async () => {
    const runner = await GpuKernelRunner.create(matmulKernel(N), 2, handle('webasm'));
    try {
      const before = runner.metrics();
      assert.deepEqual([before.backend, before.backendsRan, before.selectedBackend, before.launches, before.fallback], [null, [], 'webasm', 0, false]);
      const rand = seededRandom(1);
      const batch = runner.batchInputs();
      await runner.run([batch.pack([randomMatrix(N, rand)], [N, N]), batch.pack([randomMatrix(N, rand)], [N, N])], 1);
      const after = runner.metrics();
      assert.deepEqual([after.backend, after.backendsRan], ['webasm', ['webasm']]);
      assert.ok(after.busyMs > 0, 'a launch counts as busy time');
    } finally {
      runner.destroy();
    }
  });

  it("names gpu.js's GL kernels (mode 'gpu') headlessgl, a GPU backend, and leaves the others as they are", () => {
    assert.equal(backendOfMode('gpu'), 'headlessgl');
    for (const m of ['webgpu', 'webasm', 'cpu']) assert.equal(backendOfMode(m), m);
  });

  it('a WebGPU launch runs in the device guard; an error the device reports there fails it over to the CPU backend', async () => {
    const monitor = scriptedMonitor([() => Promise.reject(new Error('WebGPU error during the launch: Value 16777215 is invalid for WGPUBufferUsage.'))]);
    const ctx = fakeContext();
    const runner = await GpuKernelRunner.create(matmulKernel(N), 1, handle('webgpu', 'webgpu', monitor), ctx.log);
    await withPlaceholderWebGpu(async () => {
      const rand = seededRandom(2);
      const a = randomMatrix(N, rand);
      const b = randomMatrix(N, rand);
      const batch = runner.batchInputs();
      const result = await runner.run([batch.pack([a], [N, N]), batch.pack([b], [N, N])], 1);
      assertClose(result.item(0), multiply(a, b, N), 'after the device error');
      assert.equal(monitor.calls, 1, 'the CPU retry does not go through the WebGPU guard');
      const m = runner.metrics();
      assert.deepEqual([m.backend, m.backendsRan, m.fallback], ['webasm', ['webasm'], true]);
      assert.match(m.fallbackReason!, /webgpu kernel failed \(WebGPU error during the launch: Value 16777215/);
    }).finally(() => runner.destroy());
  });

  it('after a lost device the kernel is rebuilt for WebGPU (a fresh device), not moved to the CPU', async () => {
    const monitor = scriptedMonitor([
      () => {
        monitor.lost++;
        return Promise.reject(new Error('AbortError'));
      },
      () => Promise.resolve(zeros(N, 1)),
    ]);
    const ctx = fakeContext();
    const runner = await GpuKernelRunner.create(matmulKernel(N), 1, handle('webgpu', 'webgpu', monitor), ctx.log);
    await withPlaceholderWebGpu(async () => {
      const batch = runner.batchInputs();
      await runner.run([batch.pack([new Float32Array(N * N)], [N, N]), batch.pack([new Float32Array(N * N)], [N, N])], 1);
      assert.equal(monitor.calls, 2, 'retried on WebGPU');
      const m = runner.metrics();
      assert.deepEqual([m.backend, m.fallback, m.deviceStats?.lost], ['webgpu', false, 1]);
      assert.ok(ctx.logged.some((l) => l.msg === 'WebGPU device lost; rebuilding the kernel on a new device'));
    }).finally(() => runner.destroy());
  });
});

describe('GpuBolt', function () {
  this.timeout(60_000);

  it('batches tuples into launches, emits anchored results equal to the reference and acks every tuple', async () => {
    const bolt = new GpuMultiplyBolt();
    const { ctx, out } = await preparedBolt(bolt, { 'topology.gpu.batch.size': 4, 'topology.gpu.batch.max.wait.ms': 5, 'topology.gpu.launches.in.flight': 2 });
    const tuples = matrixTuples(10);
    for (const t of tuples) await bolt.execute(t);
    await until('every tuple acked', () => out.acked.length === 10);
    assert.equal(out.failed.length, 0);
    assert.equal(out.emitted.length, 10);
    for (const e of out.emitted) {
      const [id, n, s, expected] = e.values as [number, number, number, number];
      assert.equal(e.anchors, tuples[id], 'anchored to its own input');
      assert.ok(checksumMatches(s, expected, n, Math.abs(expected) + n), `product ${id}: sum ${s}, expected ${expected}`);
    }
    const m = ctx.sections.get('gpu')!() as GpuMetrics;
    assert.equal(m.backend, 'webasm');
    assert.equal(m.launches, 3, '4 + 4 + 2 (the last batch flushed by the max wait)');
    assert.equal(m.tuples, 10);
    assert.equal(m.inFlightMs.count, 10, 'every acked tuple has its time in flight');
    assert.ok(m.inFlightMs.p50 > 0);
    assert.ok(ctx.busyTime, 'the bolt reports its kernel busy time for capacity');
    assert.ok(m.busyMs > 0 && Math.abs(ctx.busyTime() - m.busyMs) <= 0.5, 'the same busy time (no launch in flight now)');
    await bolt.cleanup();
  });

  it('holds execute back while the launches in flight are at the limit (backpressure)', async () => {
    const bolt = new GpuMultiplyBolt();
    const { out } = await preparedBolt(bolt, { 'topology.gpu.batch.size': 2, 'topology.gpu.batch.max.wait.ms': 1000, 'topology.gpu.launches.in.flight': 1 });
    const [t0, t1, t2, t3] = matrixTuples(4);
    assert.equal(bolt.execute(t0!), undefined);
    assert.equal(bolt.execute(t1!), undefined, 'a full batch with a free slot launches at once');
    assert.equal(bolt.execute(t2!), undefined);
    const held = bolt.execute(t3!);
    assert.ok(held instanceof Promise, 'a full batch at the in-flight limit makes execute wait');
    assert.ok(out.acked.length < 2);
    await held;
    assert.ok(out.acked.length >= 2, 'released only after a launch finished');
    await until('all acked', () => out.acked.length === 4);
    await bolt.cleanup();
  });

  it('a tick tuple goes to onTick, never into a kernel batch; flushBatch launches the partial batch', async () => {
    const ticks: Tuple[] = [];
    class Ticking extends GpuMultiplyBolt {
      protected override onTick(tick: Tuple): void {
        ticks.push(tick);
        this.flushBatch();
      }
    }
    const bolt = new Ticking();
    const { ctx, out } = await preparedBolt(bolt, { 'topology.gpu.batch.size': 8, 'topology.gpu.batch.max.wait.ms': 60_000 });
    const [t0, t1] = matrixTuples(2);
    await bolt.execute(t0!);
    await bolt.execute(t1!);
    const tick = tickTuple(5);
    await bolt.execute(tick);
    assert.deepEqual(ticks, [tick]);
    // Without the tick's flush the two would wait a minute for six more; the batch holds only them, not the tick.
    await until('the partial batch launched by the tick', () => out.acked.length === 2);
    assert.equal(out.emitted.length, 2);
    assert.equal((ctx.sections.get('gpu')!() as GpuMetrics).tuples, 2);
    await bolt.cleanup();
  });

  it('fails every tuple of a launch that fails', async () => {
    class Broken extends GpuMultiplyBolt {
      override toInputs(_t: readonly Tuple[], _b: BatchInputs): unknown[] {
        throw new Error('bad input');
      }
    }
    const bolt = new Broken();
    const { ctx, out } = await preparedBolt(bolt, { 'topology.gpu.batch.size': 3, 'topology.gpu.batch.max.wait.ms': 1 });
    for (const t of matrixTuples(3)) await bolt.execute(t);
    await until('failed', () => out.failed.length === 3);
    assert.equal(out.acked.length, 0);
    assert.ok(ctx.logged.some((l) => l.level === 'warn' && l.msg === 'GPU launch failed; failing its tuples'));
    await bolt.cleanup();
  });

  it('on a GPU slot where WebGPU fails, runs on the CPU backend and reports the fallback', async () => {
    const bolt = new GpuMultiplyBolt();
    const { ctx, out } = await preparedBolt(bolt, { 'topology.gpu.batch.size': 2, 'topology.gpu.batch.max.wait.ms': 1 }, noGpu);
    for (const t of matrixTuples(2)) await bolt.execute(t);
    await until('acked', () => out.acked.length === 2);
    const m = ctx.sections.get('gpu')!() as GpuMetrics;
    assert.equal(m.backend, 'webasm');
    assert.equal(m.requestedBackend, 'webgpu');
    assert.equal(m.fallback, true);
    assert.match(m.fallbackReason!, /webgpu: .*GLIBCXX/);
    assert.equal(m.device, null);
    await bolt.cleanup();
  });
});
