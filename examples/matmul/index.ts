/**
 * Matrix multiplication, the paper's benchmark topology (Fig. 9):
 * MatrixReader → MatrixDealer (a GpuBolt, marked `.gpu()`) → MatrixPrinter.
 *
 *   npx hstorm local examples/matmul --duration 20
 *   node dist/examples/matmul/generate.js --dim 256 --count 64 --out /tmp/m256.bin
 *   npx hstorm local examples/matmul --duration 20 -c matmul.file=/tmp/m256.bin -c matmul.output=/tmp/products.csv
 *   npx hstorm submit examples/matmul -c topology.workers=4 -c topology.gpu.workers=2
 *
 * On a machine with no GPU slot the dealer's executors run in CPU workers,
 * on a CPU backend; the run summary says which backend ran ("backend:
 * webasm (fell back …)"). The CPU-only baseline is examples/matmul/cpu.ts.
 *
 * Config: see matmul-topology.ts (matmul.dim, matmul.parallelism,
 * matmul.file, matmul.output, topology.workers, topology.gpu.workers).
 */
import type { TopologyModuleContext } from 'hstorm';
import { matmulTopology } from './matmul-topology.js';

export { MatrixReader, MATRIX_FIELDS } from './matrix-reader.js';
export { MatrixDealer } from './matrix-dealer.js';
export { MatrixPrinter } from './matrix-printer.js';
export { MultiplyBolt } from './multiply-bolt.js';
export { matmulTopology, defaultBatch, type DealerKind } from './matmul-topology.js';
/** Earlier names of the reader and the printer, kept for code that imports them. */
export { MatrixReader as MatrixSpout } from './matrix-reader.js';
export { MatrixPrinter as ChecksumSink } from './matrix-printer.js';

export default ({ config }: TopologyModuleContext) => matmulTopology(config, 'gpu');
