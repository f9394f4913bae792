/**
 * The paper's matrix-multiplication topology (H-Storm Fig. 9) for the β and
 * scheduler benchmarks: reader → dealer (GPU bolt, A·B) → printer (checks
 * the product's checksum). One dealer executor per GPU worker by default, so
 * every GPU worker holds one dealer and the placement of GPU workers on GPUs
 * is what a run varies.
 *
 * Config (user keys): fixture.dim (32), fixture.dealers (= topology.gpu.workers).
 * Set topology.gpu.workers; topology.workers defaults to it + 1.
 */
import { TopologyBuilder, type TopologyModuleContext } from 'hstorm';
import { MatrixChecker, MatrixSpout, MultiplyGpuBolt } from './matrix-parts.js';

export default ({ config }: TopologyModuleContext) => {
  const gpuWorkers = (config['topology.gpu.workers'] as number | undefined) ?? 5;
  const dealers = (config['fixture.dealers'] as number | undefined) ?? gpuWorkers;
  const b = new TopologyBuilder();
  b.setSpout('reader', () => new MatrixSpout(), 1);
  b.setBolt('dealer', () => new MultiplyGpuBolt(), dealers).shuffleGrouping('reader').gpu();
  b.setBolt('printer', () => new MatrixChecker(), 1).shuffleGrouping('dealer');
  return b.createTopology({
    'fixture.job': 'multiply',
    'topology.workers': gpuWorkers + 1,
    'topology.gpu.workers': gpuWorkers,
    'topology.acker.executors': 1,
    'topology.max.spout.pending': 256,
  });
};
