/**
 * The paper's Sequential Topology (H-Storm Fig. 6) for the α benchmark:
 * matrices → add1 → add2 → add3 → add4 → checker, the four adds GPU bolts
 * doing matrix addition, 24 GPU executors in 6 GPU workers.
 *
 * The paper does not give the adds' parallelism. With 6 each, Algorithm 2
 * deals every add one executor per worker whatever α is (each add's input
 * workers have room), so α would only move the spout and checker; the
 * default 4/6/6/8 (still 24) lets α change how the chain is packed.
 *
 * Config (user keys): fixture.dim (32), fixture.parallelism ([4, 6, 6, 8]).
 */
import { TopologyBuilder, type TopologyModuleContext } from 'hstorm';
import { AddGpuBolt, MatrixChecker, MatrixSpout } from './matrix-parts.js';

export default ({ config }: TopologyModuleContext) => {
  const par = (config['fixture.parallelism'] as number[] | undefined) ?? [4, 6, 6, 8];
  const b = new TopologyBuilder();
  b.setSpout('matrices', () => new MatrixSpout(), 1);
  let prev = 'matrices';
  par.forEach((p, i) => {
    const id = `add${i + 1}`;
    b.setBolt(id, () => new AddGpuBolt(), p).shuffleGrouping(prev).gpu();
    prev = id;
  });
  b.setBolt('checker', () => new MatrixChecker(), 1).shuffleGrouping(prev);
  return b.createTopology({
    'fixture.job': 'add',
    'fixture.steps': par.length,
    // 6 GPU workers as in the paper, plus one for the spout, checker and acker when the GPU workers are full (α = 0)
    'topology.workers': 7,
    'topology.gpu.workers': 6,
    'topology.acker.executors': 1,
    'topology.max.spout.pending': 256,
  });
};
