/**
 * Builds the matmul topologies of the paper's Fig. 9, MatrixReader →
 * MatrixDealer → MatrixPrinter, with one of three dealers:
 *
 * - `gpu`: MatrixDealer (the GpuBolt) marked `.gpu()` — the main example;
 * - `cpu`: MultiplyBolt, plain JavaScript on a CPU worker — the native Storm
 *   baseline the paper compares against;
 * - `cpu-kernel`: MatrixDealer not marked `.gpu()` — the same kernel on a CPU
 *   backend in a CPU worker.
 * - `cupy`: a Python multilang bolt (ShellBolt running matmul_bolt.py: CuPy on
 *   a CUDA GPU, else NumPy, else pure Python, and it says which). The script
 *   lives in examples/cupy-matmul/resources/, so only that module uses it.
 *
 * Config: matmul.file (pairs to read; unset: generated), matmul.dim (64, or
 * the file's), matmul.parallelism (dealer tasks, 2), matmul.batch (GPU batch
 * size; default by size: 16 up to 64², 4 up to 256², then 1), matmul.output,
 * matmul.messages, matmul.seed, topology.workers (2), topology.gpu.workers (1).
 */
import { ConfigError, ShellBolt, TopologyBuilder, type StormTopology } from 'hstorm';
import { MatrixReader } from './matrix-reader.js';
import { MatrixDealer } from './matrix-dealer.js';
import { MatrixPrinter } from './matrix-printer.js';
import { MultiplyBolt } from './multiply-bolt.js';
import { MatrixFileReader } from './matrix-file.js';

export type DealerKind = 'gpu' | 'cpu' | 'cpu-kernel' | 'cupy';

export const MULTILANG_BACKENDS = ['auto', 'cupy', 'numpy', 'python'] as const;

/** The Python dealer (kind `cupy`): matmul.python runs matmul_bolt.py from the module's resources/. */
function pythonDealer(config: Readonly<Record<string, unknown>>): () => ShellBolt {
  const backend = config['matmul.multilang.backend'] ?? 'auto';
  if (!(MULTILANG_BACKENDS as readonly unknown[]).includes(backend)) {
    throw new ConfigError(`matmul.multilang.backend must be one of ${MULTILANG_BACKENDS.join(', ')} (got ${JSON.stringify(backend)})`, 'matmul.multilang.backend', backend);
  }
  const python = (config['matmul.python'] as string | undefined) ?? 'python3';
  return () => new ShellBolt({ command: [python, 'matmul_bolt.py'], outputFields: ['id', 'n', 'sum', 'expected'] });
}

/** Items per kernel launch: small matrices batch along z, large ones fill a launch alone. */
export function defaultBatch(n: number): number {
  return n <= 64 ? 16 : n <= 256 ? 4 : 1;
}

/** matmul.dim as the file says, checked against an explicit matmul.dim. */
export function matmulDim(config: Readonly<Record<string, unknown>>): number {
  const file = config['matmul.file'] as string | undefined;
  const dim = config['matmul.dim'] as number | undefined;
  if (!file) return dim ?? 64;
  const reader = new MatrixFileReader(file);
  const n = reader.header.n;
  reader.close();
  if (dim !== undefined && dim !== n) throw new Error(`matmul.dim=${dim} but ${file} holds ${n}×${n} matrices: drop matmul.dim or pass a matching file`);
  return n;
}

export function matmulTopology(config: Readonly<Record<string, unknown>>, kind: DealerKind): StormTopology {
  const n = matmulDim(config);
  const parallelism = (config['matmul.parallelism'] as number | undefined) ?? 2;
  const batch = (config['matmul.batch'] as number | undefined) ?? defaultBatch(n);
  const b = new TopologyBuilder();
  b.setSpout('reader', () => new MatrixReader(), 1);
  if (kind === 'cpu') {
    b.setBolt('dealer', () => new MultiplyBolt(), parallelism).shuffleGrouping('reader');
  } else if (kind === 'cupy') {
    b.setBolt('dealer', pythonDealer(config), parallelism).shuffleGrouping('reader');
  } else {
    const dealer = b.setBolt('dealer', () => new MatrixDealer(), parallelism).shuffleGrouping('reader').addConfiguration('topology.gpu.batch.size', batch);
    if (kind === 'gpu') dealer.gpu();
  }
  b.setBolt('printer', () => new MatrixPrinter(), 1).shuffleGrouping('dealer');
  return b.createTopology({
    'topology.workers': 2,
    'topology.gpu.workers': kind === 'gpu' ? 1 : 0,
    'topology.max.spout.pending': 64,
    'matmul.dim': n,
    // Importing CuPy and creating the CUDA context happen after the handshake, while heartbeats go unanswered: Storm's 30 s, not nimbus.task.timeout.secs.
    ...(kind === 'cupy' && { 'topology.subprocess.timeout.secs': 30 }),
  });
}
