/**
 * `node dist/bench/device-results.js <dir>`: the summary scripts/device-gpu-checks.sh
 * writes to summary.txt — which adapter the GPU benchmarks ran on (a software
 * adapter named as not a GPU), each result present, and any contradiction.
 * Exit status 1 when there is a problem (bench/support/device-results.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEVICE_BENCHES, summarizeDeviceResults } from './support/device-results.js';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node dist/bench/device-results.js <dir with gpu-bolt.json, bolt-latency.json, …>\n');
  process.exit(2);
}
const read = (name: string) => (existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : null);
const summary = summarizeDeviceResults({
  json: Object.fromEntries(DEVICE_BENCHES.map((b) => [b, read(`${b}.json`)])),
  machine: read('machine.txt'),
});
for (const line of summary.lines) process.stdout.write(`${line}\n`);
for (const p of summary.problems) process.stdout.write(`PROBLEM: ${p}\n`);
process.exitCode = summary.problems.length ? 1 : 0;
