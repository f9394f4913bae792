/**
 * The matmul topology on CPU bolts only — native Storm, the paper's baseline:
 * MatrixReader → MultiplyBolt (plain JavaScript) → MatrixPrinter.
 *
 *   npx hstorm local examples/matmul/cpu.ts --duration 20 -c matmul.dim=128
 *
 * Same config as the main example (matmul-topology.ts); topology.gpu.workers is 0.
 */
import type { TopologyModuleContext } from 'hstorm';
import { matmulTopology } from './matmul-topology.js';

export default ({ config }: TopologyModuleContext) => matmulTopology(config, 'cpu');
