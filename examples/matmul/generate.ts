/**
 * Writes the input file of the matmul examples:
 *
 *   node dist/examples/matmul/generate.js --dim 256 --count 100 --out /tmp/m256.bin [--seed 1]
 *   npx hstorm local examples/matmul -c matmul.file=/tmp/m256.bin --duration 20
 *
 * The format is in matrix-file.ts. The same seed gives the same file.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { writeMatrixFile, MAX_DIM, MIN_DIM } from './matrix-file.js';

const USAGE = `usage: node dist/examples/matmul/generate.js --dim N --count K --out FILE [--seed S]
  --dim    matrix dimension, ${MIN_DIM}..${MAX_DIM}
  --count  pairs of matrices (A, B) to write
  --out    the file to write
  --seed   generator seed (default 1)`;

export function main(argv: string[]): number {
  let values: { dim?: string; count?: string; out?: string; seed?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { dim: { type: 'string' }, count: { type: 'string' }, out: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.dim === undefined || values.count === undefined || values.out === undefined) {
    process.stderr.write(`--dim, --count and --out are required\n${USAGE}\n`);
    return 2;
  }
  try {
    const bytes = writeMatrixFile({ n: Number(values.dim), count: Number(values.count), out: values.out, seed: values.seed === undefined ? 1 : Number(values.seed) });
    process.stdout.write(`wrote ${values.count} pairs of ${values.dim}×${values.dim} matrices to ${values.out} (${(bytes / 2 ** 20).toFixed(1)} MiB)\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
}

// Run only as a script, so tests and benchmarks can import main().
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
