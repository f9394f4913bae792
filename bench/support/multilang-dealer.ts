/**
 * The Python matmul dealer of examples/cupy-matmul (resources/matmul_bolt.py)
 * driven in-process through the real ShellBolt and multilang protocol, one
 * tuple at a time, for the bolt-latency benchmark's "CUDA via multilang"
 * column: the figure includes the JSON round trip through the pipe, as a
 * topology would pay it, but no transport or queueing.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { OutputCollector, Values } from '../../topology-sdk/components.js';
import type { TopologyContext } from '../../topology-sdk/context.js';
import { Fields } from '../../topology-sdk/fields.js';
import { ShellBolt } from '../../topology-sdk/shell-bolt.js';
import { readEmitArgs } from '../../topology-sdk/internal/emit-args.js';
import { RuntimeTuple } from '../../worker/index.js';
import { MetricRegistry } from '../../topology-sdk/user-metrics.js';
import { packageRoot } from '../../common/package-root.js';

const FIELDS = new Fields(['id', 'n', 'a', 'b', 'expected']);

/** Whether CuPy imports and sees a CUDA device here; `why` says what is missing when not. */
export function cupyAvailable(python = 'python3'): { ok: boolean; why: string } {
  const r = spawnSync(python, ['-c', 'import cupy, sys; n = cupy.cuda.runtime.getDeviceCount(); print(n); sys.exit(0 if n > 0 else 3)'], { encoding: 'utf8', timeout: 60_000 });
  if (r.status === 0) return { ok: true, why: '' };
  if (r.status === 3) return { ok: false, why: 'CuPy imports but sees no CUDA device' };
  const last = (r.stderr || r.error?.message || '').trim().split('\n').at(-1) ?? '';
  return { ok: false, why: `CuPy is not importable by ${python} (${last})` };
}

export class MultilangDealer {
  private waiter: { resolve: (v: Values) => void; reject: (e: Error) => void } | null = null;
  private readonly logged: string[] = [];

  private constructor(private readonly bolt: ShellBolt) {}

  /** Starts matmul_bolt.py with `backend` forced (the bench asks for cupy: no silent CPU fallback). */
  static async start(backend: 'cupy' | 'numpy' | 'python', python = 'python3'): Promise<MultilangDealer> {
    const bolt = new ShellBolt({ command: [python, 'matmul_bolt.py'], outputFields: ['id', 'n', 'sum', 'expected'] });
    const d = new MultilangDealer(bolt);
    const metrics = new MetricRegistry();
    const note = (level: string) => (obj: object | string, msg?: string) => d.logged.push(`${level}: ${msg ?? (typeof obj === 'string' ? obj : '')}`);
    const ctx = {
      topologyId: 'bench',
      topologyName: 'bench',
      componentId: 'dealer',
      taskId: 2,
      taskIndex: 0,
      componentTasks: [2],
      tasksOf: () => [],
      topologyDef: { components: [], config: {} },
      codeDir: join(packageRoot(), 'examples', 'cupy-matmul'),
      workerPort: 0,
      gpu: null,
      log: { trace: note('trace'), debug: note('debug'), info: note('info'), warn: note('warn'), error: note('error') },
      registerCounter: (name: string) => metrics.counter(name),
      registerGauge: (name: string, g: () => number) => metrics.gauge(name, g),
      registerHistogram: (name: string) => metrics.histogram(name),
      reportBusyTime: () => undefined,
    } as unknown as TopologyContext;
    const collector: OutputCollector = {
      emit: (a: unknown, b?: unknown, c?: unknown) => {
        d.waiter?.resolve(readEmitArgs('bolt', 'dealer', a, b, c).values);
        d.waiter = null;
        return [3];
      },
      emitDirect: () => undefined,
      ack: () => undefined,
      resetTimeout: () => undefined,
      fail: () => {
        d.waiter?.reject(new Error(`the multilang dealer failed the tuple: ${d.logged.slice(-3).join(' | ')}`));
        d.waiter = null;
      },
      reportError: (err) => d.logged.push(`error: ${String(err)}`),
    };
    await bolt.prepare({ 'matmul.multilang.backend': backend, 'topology.subprocess.timeout.secs': 120 }, ctx, collector);
    return d;
  }

  /** The backend line matmul_bolt.py logged at start. */
  get backendLine(): string {
    return this.logged.find((l) => l.includes('backend')) ?? '';
  }

  /** Sends one pair, resolves with the product's checksum the bolt emitted. */
  async multiply(id: number, n: number, a: Float32Array, b: Float32Array): Promise<number> {
    const emitted = new Promise<Values>((resolve, reject) => (this.waiter = { resolve, reject }));
    await this.bolt.execute(new RuntimeTuple([id, n, a, b, 0], FIELDS, 'reader', 'default', 1, null));
    return (await emitted)[2] as number;
  }

  stop(): Promise<void> {
    return Promise.resolve(this.bolt.cleanup());
  }
}
