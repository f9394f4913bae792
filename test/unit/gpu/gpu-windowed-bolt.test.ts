/**
 * GpuWindowedBolt under the windowing bolt, with the sliding-covariance
 * example's kernel on the CPU backends (the same kernel a GPU runs): one
 * launch per window, several due windows in one launch along z, windows
 * larger than the padded capacity (the kernel rebuilt for twice the rows),
 * results equal to the float64 reference, emits anchored to their own
 * window, and a failed launch failing every window in it. Time is a manual
 * clock; the kernel runs for real.
 */
import assert from 'node:assert/strict';
import { Count, Duration, type EmitOptions, type OutputCollector, type TupleWindow, type Values, type Tuple, type WindowBatch } from 'hstorm';
import { WindowedBoltExecutor } from '../../../topology-sdk/internal/windowed-bolt-executor.js';
import type { GpuBackendHandle } from '../../../topology-sdk/gpu-backend-handle.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { KernelCovariance } from '../../../examples/sliding-covariance/covariance-bolts.js';
import { scatterMatrix, statsOf } from '../../../examples/sliding-covariance/covariance.js';
import { readingStream } from '../../../examples/sliding-covariance/readings.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { ManualClock } from '../../helpers/manual-clock.js';

const CHANNELS = 3;
const FIELDS = new Fields(['id', 'readings', 'ts']);
const ROWS = readingStream(64, CHANNELS, 11);
const reading = (id: number, ts = id) => new RuntimeTuple([id, ROWS[id]!, ts], FIELDS, 'readings', 'default', 1, [id + 1, 0, 1, 0]);

function handle(backend: 'webasm' | 'cpu'): GpuBackendHandle {
  return { backend, requested: backend, fallback: false, fallbackReason: null, device: null, adapter: null, monitor: null, cpuBackend: 'webasm', cpuThreads: () => 2 };
}

interface Out {
  emits: { values: Values; anchors: readonly Tuple[] }[];
  acked: number[];
  failed: number[];
}

function recorder(): OutputCollector & Out {
  const r: Out = { emits: [], acked: [], failed: [] };
  const id = (t: Tuple) => t.getIntegerByField('id');
  return Object.assign(r, {
    // Only the options form: the windowing bolt hands every emit on in it.
    emit: (values: unknown, o?: unknown): number[] => {
      r.emits.push({ values: values as Values, anchors: (o as EmitOptions | undefined)?.anchors as readonly Tuple[] });
      return [];
    },
    emitDirect() {},
    resetTimeout() {},
    ack: (t: Tuple) => void r.acked.push(id(t)),
    fail: (t: Tuple) => void r.failed.push(id(t)),
    reportError() {},
  });
}

async function prepared(bolt: KernelCovariance, backend: 'webasm' | 'cpu' = 'cpu') {
  const clock = new ManualClock(0);
  const exec = new WindowedBoltExecutor(bolt, { clock });
  const ctx = fakeContext({ component: 'cov', gpuBackend: () => Promise.resolve(handle(backend)) });
  const out = recorder();
  await exec.prepare({ 'covariance.channels': CHANNELS }, ctx, out);
  return { exec, out, clock, ctx, metrics: () => bolt.gpuMetrics() };
}

/** The float64 covariance of readings [from, to). */
function reference(from: number, to: number): number[] {
  return statsOf(scatterMatrix(ROWS.slice(from, to).map((r) => [...r, 1])), CHANNELS).cov;
}

function assertClose(actual: readonly number[], expected: readonly number[], what: string): void {
  assert.equal(actual.length, expected.length, what);
  actual.forEach((v, i) => assert.ok(Math.abs(v - expected[i]!) <= 1e-4 * (1 + Math.abs(expected[i]!)), `${what}: [${i}] ${v} vs ${expected[i]}`));
}

async function feed(exec: WindowedBoltExecutor, t: Tuple): Promise<void> {
  await exec.execute(t);
}

describe('GpuWindowedBolt', function () {
  this.timeout(60_000);

  for (const backend of ['cpu', 'webasm'] as const) {
    it(`${backend}: one launch per count window, the covariance of its rows, anchored to its own tuples`, async () => {
      const { exec, out, metrics } = await prepared(new KernelCovariance().withWindow(Count.of(8), Count.of(4)), backend);
      for (let i = 0; i < 16; i++) await feed(exec, reading(i));
      assert.equal(out.emits.length, 4);
      assert.equal(metrics().launches, 4);
      assert.equal(metrics().backend, backend);
      const spans = [[0, 4], [0, 8], [4, 12], [8, 16]] as const;
      out.emits.forEach((e, k) => {
        const [from, to] = spans[k]!;
        assert.deepEqual(e.values.slice(0, 2), [to - 1, to - from], `window ${k}: key and rows`);
        assertClose(e.values[2] as number[], reference(from, to), `window ${k}`);
        assert.deepEqual(e.anchors.map((t) => t.getIntegerByField('id')), Array.from({ length: to - from }, (_, i) => from + i));
      });
      assert.deepEqual(out.acked, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], "the next window (at 20) holds 12…19 only");
      await exec.cleanup();
    });
  }

  it('puts windows due together into one launch along z, and grows the padded capacity for a larger window', async () => {
    const bolt = new KernelCovariance()
      .withTumblingWindow(Duration.ofMillis(10))
      .withTimestampField('ts')
      .withWatermarkInterval(Duration.ofMillis(100))
      .withWindowsPerLaunch(4)
      .withCapacity(4);
    const { exec, out, clock, ctx, metrics } = await prepared(bolt);
    // Stamps 0…29 → windows [0,10), [10,20), [20,30) of 10 readings each, all due at one watermark (one tick).
    for (let i = 0; i < 30; i++) await feed(exec, reading(i));
    await feed(exec, reading(40, 100)); // moves the watermark past 30
    await clock.advance(100);
    await exec.cleanup();
    assert.equal(out.emits.length, 3);
    assert.equal(metrics().launches, 1, 'three windows, one launch');
    [0, 10, 20].forEach((from, k) => assertClose(out.emits[k]!.values[2] as number[], reference(from, from + 10), `window ${k}`));
    assert.equal(metrics().batchSize, 4);
    assert.deepEqual(
      ctx.logged.filter((l) => l.level === 'warn' && /rebuilding the kernel/.test(l.msg ?? '')).map((l) => [(l.obj as { from: number; to: number }).from, (l.obj as { to: number }).to]),
      [[4, 16]],
      'windows of 10 rows: capacity 4 doubled to 16, once',
    );
  });

  it('fails every tuple of every window in a failed launch, and acks none of them', async () => {
    class Broken extends KernelCovariance {
      override toInputs(windows: readonly TupleWindow[], batch: WindowBatch): unknown[] {
        if (windows[0]!.get().length > 4) throw new Error('cannot pack');
        return super.toInputs(windows, batch);
      }
    }
    const { exec, out, metrics } = await prepared(new Broken().withWindow(Count.of(8), Count.of(4)));
    for (let i = 0; i < 8; i++) await feed(exec, reading(i));
    assert.deepEqual(out.failed.sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(out.acked, []);
    assert.equal(metrics().failedLaunches, 1);
    assert.equal(exec.metrics().failedWindows, 1);
  });
});
