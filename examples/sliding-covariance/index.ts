/**
 * A sliding covariance over sensor readings (issue 23): every 16 readings,
 * the covariance matrix of the last 64 and an anomaly flag (a new reading
 * more than 6σ from the window's mean on some channel). Each window is one
 * gpu.js kernel launch computing X'ᵀ·X' over all its rows (GpuWindowedBolt),
 * on a GPU worker's GPU backend and, with the same class, on a CPU worker's
 * CPU backend; a plain-JS windowed bolt computes the float64 reference and
 * the checker compares every window.
 *
 *   readings ─┬→ covariance-gpu (GpuWindowedBolt, .gpu()) ─┐
 *             ├→ covariance-cpu (GpuWindowedBolt, CPU worker)├→ check
 *             └→ covariance-js  (WindowedBolt, float64)      ─┘
 *
 *   npx hstorm local examples/sliding-covariance --duration 10
 *   npx hstorm local examples/sliding-covariance -c covariance.readings=20000 -c covariance.output=/tmp/windows.jsonl
 *   "$(bash scripts/webgpu-runtime.sh)" bin/hstorm.js local examples/sliding-covariance -c covariance.gpu.backend=webgpu
 *
 * Without a GPU slot, local mode runs covariance-gpu's kernel on a CPU
 * backend and every report says so (a fallback, never a GPU run).
 *
 * Config: covariance.readings (2000), covariance.channels (8),
 * covariance.window (64 readings), covariance.slide (16), covariance.rate
 * (readings per second, default unpaced), covariance.output (JSON lines),
 * covariance.gpu.backend (covariance-gpu's topology.gpu.backend only: `webgpu`
 * runs it on any WebGPU adapter, a software one included, labelled as such).
 */
import { Count, TopologyBuilder, type TopologyModuleContext } from 'hstorm';
import { ReadingSpout } from './readings.js';
import { JsCovariance, KernelCovariance } from './covariance-bolts.js';
import { CovarianceCheck } from './covariance-check.js';

export { ReadingSpout, readingStream, spikeIds, SPIKE } from './readings.js';
export { KernelCovariance, JsCovariance, scatterKernel, COVARIANCE_FIELDS } from './covariance-bolts.js';
export { CovarianceCheck } from './covariance-check.js';

export default ({ config }: TopologyModuleContext) => {
  const length = Count.of((config['covariance.window'] as number | undefined) ?? 64);
  const slide = Count.of((config['covariance.slide'] as number | undefined) ?? 16);
  const b = new TopologyBuilder();
  b.setSpout('readings', () => new ReadingSpout(), 1);
  const gpu = b.setBolt('covariance-gpu', () => new KernelCovariance().withWindow(length, slide), 1).shuffleGrouping('readings').gpu();
  const gpuBackend = config['covariance.gpu.backend'];
  if (gpuBackend !== undefined) gpu.addConfiguration('topology.gpu.backend', gpuBackend);
  b.setBolt('covariance-cpu', () => new KernelCovariance().withWindow(length, slide), 1).shuffleGrouping('readings');
  b.setBolt('covariance-js', () => new JsCovariance().withWindow(length, slide), 1).shuffleGrouping('readings');
  b.setBolt('check', () => new CovarianceCheck('covariance-js', ['covariance-gpu', 'covariance-cpu']), 1)
    .globalGrouping('covariance-gpu')
    .globalGrouping('covariance-cpu')
    .globalGrouping('covariance-js');
  return b.createTopology({ 'topology.workers': 2, 'topology.gpu.workers': 1 });
};
