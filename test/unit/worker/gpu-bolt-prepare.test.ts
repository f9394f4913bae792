/**
 * The cause of the failed tuples in alpha-sweep quick runs (docs/benchmarks.md,
 * issue 14): a GpuBolt's prepare waits for its GPU backend (a probe that can
 * take a second on a loaded machine), while peer workers send as soon as this
 * worker's port is bound. Executed during prepare, a GpuBolt's batch launched
 * without a kernel runner; the launch "failed" and every tuple of it was
 * failed — counted by the bolt (add1) and by the acker it told (__acker), in
 * whole batches (49 = 3 × 16 + 1, 64 = 4 × 16). The executor now never calls
 * execute before prepare has finished (as Storm); this test runs a real
 * GpuBolt (CPU backend) in a real BoltExecutor whose backend arrives only
 * when the test releases it, with 40 anchored tuples queued meanwhile, and
 * fails if any of them is failed or left unacked.
 */
import assert from 'node:assert/strict';
import { BoltExecutor } from '../../../worker/executor/bolt-executor.js';
import type { ExecutorHost } from '../../../worker/executor/executor-host.js';
import { ACK, FAIL, type AckKind } from '../../../worker/acking/ack-messages.js';
import { WorkerGpuBackends } from '../../../worker/gpu/gpu-backend.js';
import { ACKER_COMPONENT, computeTasks, type TopologyDef } from '../../../common/topology-def.js';
import { defaultConfig, withDefaults } from '../../../common/config/config.js';
import { componentSettings } from '../../../worker/worker-settings.js';
import { silentLogger } from '../../../common/logger.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import type { Tuple } from '../../../topology-sdk/tuple.js';
import { GpuBolt, type GpuEmit } from '../../../topology-sdk/gpu-bolt.js';
import type { BatchInputs, BatchResult } from '../../../topology-sdk/internal/gpu-batch.js';
import type { KernelSpec } from '../../../topology-sdk/internal/gpu-kernel-runner.js';
import type { GpuBackendHandle } from '../../../topology-sdk/gpu-backend-handle.js';
import type { OutputFieldsDeclarer } from '../../../topology-sdk/output-declarer.js';
import type { ComponentPlacement, TopologyContext } from '../../../topology-sdk/context.js';
import type { IKernelFunctionThis } from 'gpu.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { waitFor } from '../../helpers/wait-for.js';

const LEN = 4;

function addKernel(this: IKernelFunctionThis, a: number[][], b: number[][]): number {
  return a[this.thread.y]![this.thread.x]! + b[this.thread.y]![this.thread.x]!;
}

/** v + w for vectors of 4, one batch item per tuple. */
class AddVectors extends GpuBolt {
  kernel(): KernelSpec {
    return { fn: addKernel, output: [LEN] };
  }

  toInputs(tuples: readonly Tuple[], batch: BatchInputs): unknown[] {
    return [batch.pack(tuples.map((t) => t.getValue(0) as Float32Array), [LEN]), batch.pack(tuples.map((t) => t.getValue(1) as Float32Array), [LEN])];
  }

  emitResults(result: BatchResult, tuples: readonly Tuple[], emit: GpuEmit): void {
    tuples.forEach((t, i) => emit(t, [result.item(i)]));
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['sum']);
  }
}

const DEF: TopologyDef = {
  components: [
    { id: 'src', kind: 'spout', parallelism: 1, streams: [{ id: 'default', fields: ['v', 'w'], direct: false }], inputs: [], gpu: null, config: {} },
    { id: 'add', kind: 'bolt', parallelism: 1, streams: [{ id: 'default', fields: ['sum'], direct: false }], inputs: [{ component: 'src', stream: 'default', grouping: { type: 'shuffle' } }], gpu: { memoryMB: 0 }, config: {} },
    { id: 'sink', kind: 'bolt', parallelism: 1, streams: [], inputs: [{ component: 'add', stream: 'default', grouping: { type: 'shuffle' } }], gpu: null, config: {} },
  ],
  config: {},
};

/** One executor's worker: records what it sends (the acker is elsewhere), runs the executor when woken. */
class OneExecutorHost implements ExecutorHost {
  readonly topologyId = 'race-1';
  readonly log = silentLogger();
  readonly def = DEF;
  readonly sent: { dest: number; stream: string; values: unknown[] }[] = [];
  executor: BoltExecutor | null = null;
  private readonly tasks = computeTasks(DEF, 1);
  private readonly config = { ...defaultConfig(), 'topology.gpu.batch.size': 16 };
  private scheduled = false;

  constructor(private readonly backend: () => Promise<GpuBackendHandle>) {}

  tasksOf(component: string): readonly number[] {
    return this.tasks.filter((t) => t.component === component).map((t) => t.task);
  }

  isLocal(): boolean {
    return true;
  }

  isPlaced(): boolean {
    return true;
  }

  placementOf(component: string): ComponentPlacement {
    return { running: this.tasksOf(component), unplaced: [], reason: null };
  }

  configOf(): Readonly<Record<string, unknown>> {
    return this.config;
  }

  fieldsOf(component: string): Fields {
    return new Fields(component === 'src' ? ['v', 'w'] : ['sum']);
  }

  send(dest: number, _src: string, _srcTask: number, stream: string, values: unknown[]): void {
    this.sent.push({ dest, stream, values });
  }

  /** Ack messages by kind, one entry per message. */
  readonly acks: AckKind[] = [];

  sendAck(_dest: number, _srcTask: number, kind: AckKind): void {
    this.acks.push(kind);
  }

  sendAcks(): void {
    throw new Error('a bolt sends its acks one by one');
  }

  ackerFor(): number | null {
    return this.tasksOf(ACKER_COMPONENT)[0] ?? null;
  }

  isCongested(): boolean {
    return false;
  }

  localAcker(): undefined {
    return undefined;
  }

  runsHere(): boolean {
    return false;
  }

  wake(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const ex = this.executor;
      if (ex?.ready()) {
        ex.runSlice(performance.now() + 5);
        this.wake();
      }
    });
  }

  contextFor(component: string, task: number): TopologyContext {
    return fakeContext({ component, taskId: task, tasks: [...this.tasksOf(component)], gpuBackend: this.backend });
  }
}

describe('a GPU bolt whose prepare is slow (the alpha-sweep failures)', function () {
  this.timeout(60_000);

  it('fails no tuple that arrived while its GPU backend was still being chosen, and acks every one', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const backends = new WorkerGpuBackends(null, 2, silentLogger(), {});
    const host = new OneExecutorHost(() => gate.then(() => backends.acquire('auto')));
    const task = host.tasksOf('add')[0]!;
    const src = host.tasksOf('src')[0]!;
    const ex = new BoltExecutor(host, 'add', task, componentSettings(withDefaults(host.configOf())), new AddVectors());
    host.executor = ex;
    const started = ex.start();

    // Peers send as soon as the port is bound: 40 anchored tuples (2½ batches) queue while prepare waits for its backend.
    const n = 40;
    for (let i = 0; i < n; i++) {
      const v = Float32Array.from({ length: LEN }, (_, k) => i + k);
      ex.enqueue(new RuntimeTuple([v, v], host.fieldsOf('src'), 'src', 'default', src, [1000 + i, 0, 7 + i, 0]));
      host.wake();
    }
    // Let the run loop have its turns while prepare is pending.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    release();
    await started;

    await waitFor('every tuple acked or failed to the acker', () => host.acks.length >= n, 30_000, 10);
    const failed = host.acks.filter((k) => k === FAIL);
    assert.equal(failed.length, 0, `${failed.length} tuples failed (the executor ran execute before prepare had finished)`);
    assert.equal(host.acks.filter((k) => k === ACK).length, n);
    assert.equal(ex.metrics.failed, 0);
    // And the results are right: v + v for each tuple.
    const sums = host.sent.filter((s) => s.stream === 'default').map((s) => Array.from(s.values[0] as Float32Array));
    assert.equal(sums.length, n);
    assert.deepEqual(sums.map((x) => x[0]).sort((a, b) => a! - b!), Array.from({ length: n }, (_, i) => 2 * i));
    await ex.stop();
  });
});
