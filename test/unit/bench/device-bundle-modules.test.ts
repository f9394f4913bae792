/**
 * scripts/device-bundle.sh leaves esbuild out of the node_modules it carries to
 * a GPU machine (it only bundles topologies for `hstorm submit`, and the call
 * carries 64 MiB at most). So what scripts/device-gpu-checks.sh runs — the GPU
 * benchmarks, `hstorm local` underneath them, the worker, the results summary —
 * must load without it: a static import of esbuild anywhere in that graph breaks
 * every check on the device (scripts/device-bundle-proof.sh found one). Node
 * resolves a module's whole static graph before running it, so a resolve hook
 * that refuses esbuild, in a child process, finds such an import without
 * running anything; a dynamic import on the path that bundles stays allowed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const PRUNED = /^(esbuild|@esbuild\/.*)$/;

/** The modules the device checks load; the worker's main.js starts a worker on import, worker.js is its graph's heart. */
const DEVICE_MODULES = [
  'bench/gpu-bolt.bench.js',
  'bench/bolt-latency.bench.js',
  'bench/hybrid-vs-single.bench.js',
  'bench/windows.bench.js',
  'bench/support/device-results.js',
  'cli/local-run.js',
  'cli/topology-source.js',
  'worker/worker.js',
  'worker/load-topology.js',
];

/** Loads `modules` (absolute paths) in a child node whose resolver refuses what the bundle prunes. */
function loadWithoutPruned(modules: string[]): { status: number | null; output: string } {
  const hook = `export async function resolve(s, c, next) { if (${PRUNED}.test(s)) throw new Error('the device bundle has no ' + s + ', imported by ' + c.parentURL); return next(s, c); }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
  // Import only (a module's static graph is resolved before any of it runs); the bench modules export run() and do nothing on import.
  const script = `for (const m of ${JSON.stringify(modules.map((m) => pathToFileURL(m).href))}) await import(m); console.log('loaded');`;
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('modules the GPU device checks load', () => {
  it('load without esbuild, which the device bundle leaves out', () => {
    const r = loadWithoutPruned(DEVICE_MODULES.map((m) => join(dist, m)));
    assert.equal(r.status, 0, r.output);
    assert.match(r.output, /^loaded$/m);
  });

  it('would catch a static import of esbuild', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hstorm-device-modules-'));
    try {
      const importer = join(dir, 'imports-esbuild.mjs');
      writeFileSync(importer, "import { build } from 'esbuild';\nexport const b = build;\n");
      const r = loadWithoutPruned([importer]);
      assert.notEqual(r.status, 0);
      assert.match(r.output, /the device bundle has no esbuild, imported by file:.*imports-esbuild\.mjs/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
