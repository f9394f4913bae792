/**
 * Hybrid CPU/GPU matrix multiplication (the paper's Fig. 12): one
 * MatrixReader emits through an adaptive StreamSplit (DESIGN §8) to two
 * MatrixDealers of the same class — `cpu-dealer` on stream `cpu`, not marked
 * `.gpu()`, so its kernel runs on a CPU backend in a CPU worker, and
 * `gpu-dealer` on stream `gpu`, marked `.gpu()` — and both feed one
 * MatrixPrinter that verifies every product. The split moves γ, the share
 * sent to the GPU dealer, toward the faster side.
 *
 *   npx hstorm local examples/hybrid-matmul --duration 30
 *   npx hstorm local examples/hybrid-matmul --duration 30 -c matmul.dim=128 -c hstorm.split.policy=capacity
 *   "$(bash scripts/webgpu-runtime.sh)" bin/hstorm.js local examples/hybrid-matmul -c hybrid.gpu.backend=webgpu
 *
 * `hybrid.gpu.backend` forces the GPU dealer's gpu.js backend (its
 * topology.gpu.backend) without touching the CPU dealer's: `webgpu` runs it on
 * any WebGPU adapter, a software one included (labelled as such).
 *
 * Config: matmul.* as in examples/matmul (matmul.dim 64, matmul.file, …),
 * hybrid.cpu.parallelism (2), hybrid.gpu.parallelism (2), hstorm.split.*
 * (theta 0.9, window 1 s, policy latency), topology.workers (3),
 * topology.gpu.workers (1).
 */
import { TopologyBuilder, type TopologyModuleContext } from 'hstorm';
import { MatrixReader } from '../matmul/matrix-reader.js';
import { MatrixDealer } from '../matmul/matrix-dealer.js';
import { MatrixPrinter } from '../matmul/matrix-printer.js';
import { defaultBatch, matmulDim } from '../matmul/matmul-topology.js';

export default ({ config }: TopologyModuleContext) => {
  const n = matmulDim(config);
  const batch = (config['matmul.batch'] as number | undefined) ?? defaultBatch(n);
  const b = new TopologyBuilder();
  b.setSpout('reader', () => new MatrixReader({ split: true, cpuComponent: 'cpu-dealer', gpuComponent: 'gpu-dealer' }), 1);
  b.setBolt('cpu-dealer', () => new MatrixDealer(), (config['hybrid.cpu.parallelism'] as number | undefined) ?? 2)
    .shuffleGrouping('reader', 'cpu')
    .addConfiguration('topology.gpu.batch.size', batch);
  const gpuDealer = b
    .setBolt('gpu-dealer', () => new MatrixDealer(), (config['hybrid.gpu.parallelism'] as number | undefined) ?? 2)
    .shuffleGrouping('reader', 'gpu')
    .addConfiguration('topology.gpu.batch.size', batch)
    .gpu();
  const gpuBackend = config['hybrid.gpu.backend'];
  if (gpuBackend !== undefined) gpuDealer.addConfiguration('topology.gpu.backend', gpuBackend);
  b.setBolt('printer', () => new MatrixPrinter(), 1).shuffleGrouping('cpu-dealer').shuffleGrouping('gpu-dealer');
  return b.createTopology({
    'topology.workers': 3,
    'topology.gpu.workers': 1,
    'topology.max.spout.pending': 64,
    'matmul.dim': n,
  });
};
