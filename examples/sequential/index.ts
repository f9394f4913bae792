/**
 * The paper's Sequential Topology (Fig. 6, the α experiment): a spout, four
 * GPU bolts in a chain each adding B to the running matrix, and a Checker
 * that verifies every result is A + 4B.
 *
 *   npx hstorm local examples/sequential --duration 20
 *   npx hstorm local examples/sequential --duration 20 -c sequential.parallelism=1 -c topology.workers=2 -c topology.gpu.workers=1
 *
 * By default 24 GPU executors (4 bolts × parallelism 6) in 6 GPU workers, as
 * in the paper, plus one CPU worker for the spout, the checker and the
 * ackers. With no GPU slot the adders run on a CPU backend and the summary
 * says so.
 *
 * Config: sequential.dim (64), sequential.parallelism (6, per adder),
 * sequential.pool (8), sequential.messages (per spout task; 0 = unbounded),
 * sequential.output, topology.workers (7), topology.gpu.workers (6).
 */
import { TopologyBuilder, type TopologyModuleContext } from 'hstorm';
import { MatrixAdder } from './matrix-adder.js';
import { MatrixSource } from './matrix-source.js';
import { Checker } from './checker.js';

export { MatrixAdder, addKernel, SEQUENTIAL_FIELDS } from './matrix-adder.js';
export { MatrixSource } from './matrix-source.js';
export { Checker, firstMismatch } from './checker.js';

/** Adders in the chain (the paper's four). */
export const STEPS = 4;

export default ({ config }: TopologyModuleContext) => {
  const parallelism = (config['sequential.parallelism'] as number | undefined) ?? 6;
  const n = (config['sequential.dim'] as number | undefined) ?? 64;
  const b = new TopologyBuilder();
  b.setSpout('source', () => new MatrixSource(), 1);
  let prev = 'source';
  for (let i = 1; i <= STEPS; i++) {
    const id = `add${i}`;
    b.setBolt(id, () => new MatrixAdder(), parallelism).shuffleGrouping(prev).gpu();
    prev = id;
  }
  b.setBolt('checker', () => new Checker(), 1).shuffleGrouping(prev);
  return b.createTopology({
    'topology.workers': 7,
    'topology.gpu.workers': 6,
    'topology.max.spout.pending': 64,
    'sequential.dim': n,
    'sequential.steps': STEPS,
  });
};
