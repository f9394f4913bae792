/**
 * Matrix multiplication with a native GPU bolt through Storm's multilang
 * protocol: MatrixReader → a Python dealer (resources/matmul_bolt.py, a
 * ShellBolt) → MatrixPrinter, the matmul topology of examples/matmul with the
 * gpu.js dealer swapped for CuPy.
 *
 *   npx hstorm local examples/cupy-matmul --duration 20
 *   npx hstorm local examples/cupy-matmul -c matmul.multilang.backend=numpy -c matmul.dim=128
 *   npx hstorm submit examples/cupy-matmul -c topology.workers=2   # the script travels in the bundle
 *
 * The dealer multiplies on a CUDA GPU with CuPy when CuPy imports and sees a
 * device, with NumPy on the CPU otherwise, and in pure Python when NumPy is
 * missing too. It says which: a log line at start (worker log, "backend numpy:
 * NumPy 2.x on the CPU; no GPU backend: CuPy unavailable …") and a counter per
 * product, multilang.backend.<cupy|numpy|python>, in the component's metrics
 * (`hstorm local` prints it under the dealer; nimbus's API and UI show it).
 *
 * Config: matmul.multilang.backend (auto | cupy | numpy | python; default
 * auto), matmul.python (the interpreter, default python3), and the matmul
 * keys (matmul.dim, matmul.parallelism, matmul.messages, matmul.output, …).
 * Writing a Python bolt: docs/multilang.md.
 */
import type { TopologyModuleContext } from 'hstorm';
import { matmulTopology } from '../matmul/matmul-topology.js';

export default ({ config }: TopologyModuleContext) => matmulTopology(config, 'cupy');
