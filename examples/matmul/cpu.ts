/**
 * The matmul topology on CPU bolts only — native Storm, the paper's baseline:
 * MatrixReader → MultiplyBolt (plain JavaScript) → MatrixPrinter.
 *
 *   npx hstorm local examples/matmul/cpu.ts --duration 20 -c matmul.dim=128
 *
 * Same config as the main example (matmul-topology.ts); topology.gpu.workers is 0.
 * `-c matmul.dealer=kernel` swaps the plain-JS bolt for MatrixDealer not
 * marked `.gpu()`: the GpuBolt kernel on a CPU backend in a CPU worker (the
 * CPU side of the hybrid example, alone).
 */
import type { TopologyModuleContext } from 'hstorm';
import { matmulTopology } from './matmul-topology.js';

export default ({ config }: TopologyModuleContext) => matmulTopology(config, config['matmul.dealer'] === 'kernel' ? 'cpu-kernel' : 'cpu');
