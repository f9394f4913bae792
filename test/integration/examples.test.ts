/**
 * Smoke test of the shipped examples: each runs a few seconds in local mode
 * (real worker processes), verifies every result it produced, and reports
 * the backend each GPU bolt actually ran on — a CPU backend here is labelled
 * a fallback, never a GPU run. Also the matmul generator's command line.
 *
 * Every example but sliding-covariance also has a Flux YAML form (docs/flux.md): each test runs the
 * module and then the YAML with the same config, checks both alike, and
 * compares what they produced.
 *
 * The local cluster gets one GPU declared in config: on a machine with no
 * GPU a `.gpu()` component needs a GPU slot to be placed, and a declared GPU
 * gives it one whose kernels run on a CPU backend (reported as a fallback).
 * On a machine with a real GPU, discovery finds it first and the declared
 * one is ignored.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT, type LocalRunOptions } from '../../cli/local-run.js';
import { untilAcked } from '../helpers/until-acked.js';
import type { RunSummary } from '../../cli/run-summary.js';
import { verifiedIds } from '../helpers/matmul-output.js';
import { HEADER_BYTES, MatrixFileReader, pairBytes, writeMatrixFile } from '../../examples/matmul/matrix-file.js';
import { SENTENCES } from '../../examples/word-count/index.js';
import { WORDS } from '../../examples/rolling-top-words/index.js';
import { spikeIds } from '../../examples/sliding-covariance/readings.js';

type Form = 'module' | 'yaml';
const FORMS: readonly Form[] = ['module', 'yaml'];

/**
 * Runs an example as its module and as its Flux file, one after the other,
 * with the same options; `out` names each run's output file. Returns the
 * summaries and output files by form.
 */
async function bothForms(
  paths: Record<Form, string>,
  out: (form: Form) => string,
  opts: (output: string, form: Form) => Omit<LocalRunOptions, 'module'>,
): Promise<Record<Form, { s: RunSummary; output: string }>> {
  const runs = {} as Record<Form, { s: RunSummary; output: string }>;
  for (const form of FORMS) {
    const output = out(form);
    runs[form] = { s: await runLocal({ module: join(PACKAGE_ROOT, paths[form]), ...opts(output, form) }), output };
  }
  return runs;
}

const GPU_BACKENDS = ['webgpu', 'headlessgl'];

/** What the Python dealer of examples/cupy-matmul should pick here: CuPy with a CUDA device, else NumPy, else pure Python. */
function expectedPythonBackend(): string {
  const ok = (code: string) => spawnSync('python3', ['-c', code], { stdio: 'ignore' }).status === 0;
  if (ok('import cupy, sys; sys.exit(0 if cupy.cuda.runtime.getDeviceCount() > 0 else 1)')) return 'cupy';
  return ok('import numpy') ? 'numpy' : 'python';
}

const VIRTUAL_GPU = {
  'supervisor.gpus': [{ id: 'vgpu0', name: 'test GPU (declared, no device)', smCount: 10, clockMHz: 1500, memoryMB: 8192, computeCapability: '6.1', slots: 8 }],
};

/** The component ran a kernel, says on which backend, and calls a CPU backend under a GPU marking a fallback. */
function assertBackend(s: RunSummary, component: string, markedGpu: boolean): string[] {
  const gpu = s.components[component]?.gpu;
  assert.ok(gpu, `${component} reports no gpu metrics`);
  assert.ok(gpu.backends.length > 0, `${component} reports no backend`);
  for (const b of gpu.backends) {
    if (GPU_BACKENDS.includes(b)) continue;
    assert.ok(['webasm', 'cpu'].includes(b), `${component}: unknown backend ${b}`);
    if (markedGpu) {
      assert.equal(gpu.fallback, true, `${component} ran on ${b} but is not reported as a fallback`);
      assert.ok(gpu.fallbackReasons.length > 0, `${component}: a fallback without a reason`);
    }
  }
  return gpu.backends;
}

describe('examples (local mode smoke test)', function () {
  this.timeout(240_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-examples-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('matmul generate.js writes a file MatrixReader can read, and rejects a bad dimension', () => {
    const out = join(dir, 'gen.bin');
    const script = join(PACKAGE_ROOT, 'dist/examples/matmul/generate.js');
    execFileSync(process.execPath, [script, '--dim', '32', '--count', '3', '--out', out]);
    assert.equal(statSync(out).size, HEADER_BYTES + 3 * pairBytes(32));
    const r = new MatrixFileReader(out);
    assert.deepEqual(r.header, { n: 32, count: 3 });
    assert.equal(r.read(2).b.length, 32 * 32);
    r.close();
    const bad = spawnSync(process.execPath, [script, '--dim', '2048', '--count', '1', '--out', join(dir, 'bad.bin')], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--dim must be an integer in \[32, 1024\]/);
  });

  it('matmul (module and Flux YAML): reader (file) → GPU dealer → printer verifies every product, both forms alike', async () => {
    const input = join(dir, 'm32.bin');
    writeMatrixFile({ n: 32, count: 8, out: input });
    const runs = await bothForms(
      { module: 'examples/matmul', yaml: 'examples/matmul/topology.yaml' },
      (form) => join(dir, `products-${form}.csv`),
      (output) => ({
        ...untilAcked(40),
        // The module reads matmul.dim from the file; a Flux file takes it as config.
        overrides: { 'matmul.file': input, 'matmul.dim': 32, 'matmul.output': output, 'matmul.messages': 40 },
        clusterConfig: VIRTUAL_GPU,
      }),
    );
    for (const { s, output } of Object.values(runs)) {
      assert.equal(s.acked, 40);
      assert.equal(s.failed, 0);
      assert.equal(verifiedIds(output).size, 40);
      assertBackend(s, 'dealer', true);
    }
    assert.deepEqual(verifiedIds(runs.yaml.output), verifiedIds(runs.module.output));
  });

  it('matmul/cpu.ts and cpu.yaml: the CPU-only baseline with in-memory matrices, both forms alike', async () => {
    const runs = await bothForms(
      { module: 'examples/matmul/cpu.ts', yaml: 'examples/matmul/cpu.yaml' },
      (form) => join(dir, `cpu-${form}.csv`),
      (output) => ({ ...untilAcked(50), overrides: { 'matmul.dim': 32, 'matmul.output': output, 'matmul.messages': 50 } }),
    );
    for (const { s, output } of Object.values(runs)) {
      assert.equal(s.acked, 50);
      assert.equal(s.failed, 0);
      assert.equal(verifiedIds(output).size, 50);
      assert.equal(s.components.dealer?.gpu, undefined, 'the plain-JS dealer has no GPU backend');
    }
    // Generated from the same seed: the same products, line for line.
    assert.deepEqual(readFileSync(runs.yaml.output, 'utf8').split('\n').sort(), readFileSync(runs.module.output, 'utf8').split('\n').sort());
  });

  it('sequential (module and Flux YAML with --filter): four GPU adders in a chain, the checker verifies A + 4B cell by cell, both forms alike', async () => {
    // The YAML's adder parallelism is a variable: a properties file gives the module's -c sequential.parallelism=1.
    const filter = join(dir, 'sequential.properties');
    writeFileSync(filter, 'sequential.parallelism=1\n');
    const runs = await bothForms(
      { module: 'examples/sequential', yaml: 'examples/sequential/topology.yaml' },
      (form) => join(dir, `sequential-${form}.jsonl`),
      (output, form) => ({
        ...untilAcked(30),
        ...(form === 'yaml' && { flux: { filter } }),
        overrides: { 'sequential.dim': 32, 'sequential.parallelism': 1, 'topology.workers': 2, 'topology.gpu.workers': 1, 'sequential.messages': 30, 'sequential.output': output },
        clusterConfig: VIRTUAL_GPU,
      }),
    );
    for (const { s, output } of Object.values(runs)) {
      assert.equal(s.acked, 30);
      assert.equal(s.failed, 0);
      const lines = readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { verified: number; wrong: number; steps: number });
      assert.deepEqual(lines, [{ verified: 30, wrong: 0, steps: 4 }]);
      for (const c of ['add1', 'add2', 'add3', 'add4']) assertBackend(s, c, true);
      assert.equal(s.components.add1!.executors, 1);
    }
  });

  for (const forced of [null, 'python'] as const) {
    // The YAML form once, with the dealer's own choice: forcing a backend is the script's business, the same in both forms.
    const forms: readonly Form[] = forced ? ['module'] : FORMS;
    it(`cupy-matmul${forced ? '' : ' (module and Flux YAML)'}: the Python multilang dealer (${forced ? 'pure Python forced' : 'CuPy, else NumPy, else pure Python'}) verifies every product and says which backend ran`, async () => {
      const backend = forced ?? expectedPythonBackend();
      const verified: Set<string>[] = [];
      for (const form of forms) {
        const output = join(dir, `cupy-${forced ?? 'auto'}-${form}.csv`);
        const s = await runLocal({
          module: join(PACKAGE_ROOT, form === 'module' ? 'examples/cupy-matmul' : 'examples/cupy-matmul/topology.yaml'),
          ...untilAcked(20, 60),
          overrides: { 'matmul.dim': 32, 'matmul.output': output, 'matmul.messages': 20, ...(forced && { 'matmul.multilang.backend': forced }) },
        });
        assert.equal(s.acked, 20, form);
        assert.equal(s.failed, 0, form);
        verified.push(verifiedIds(output));
        assert.equal(verified.at(-1)!.size, 20, form);
        assert.deepEqual(s.components.dealer?.counters, { [`multilang.backend.${backend}`]: 20 }, `${form}: the dealer counts its products under the backend that ran (${backend})`);
      }
      if (verified.length === 2) assert.deepEqual(verified[1], verified[0]);
    });
  }

  it('sliding-covariance: one kernel launch per window on the GPU side (a fallback here) and on a CPU worker, every window verified against float64, every spike flagged', async () => {
    const output = join(dir, 'covariance.jsonl');
    const readings = 2000;
    const windows = readings / 16;
    const verified = () => readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { key: number; n: number; anomaly: boolean; verified: boolean; wrong: string[] });
    const s = await runLocal({
      module: join(PACKAGE_ROOT, 'examples/sliding-covariance'),
      durationSec: 120,
      drainSec: 1,
      // The last 48 readings stay in the sliding window (no later window comes): wait for the windows, not the acks.
      until: () => {
        try {
          return verified().length >= windows;
        } catch {
          return false;
        }
      },
      overrides: { 'covariance.readings': readings, 'covariance.output': output },
      clusterConfig: VIRTUAL_GPU,
    });
    const lines = verified();
    assert.equal(lines.length, windows);
    assert.deepEqual(lines.filter((l) => !l.verified), [], 'every kernel window equals the float64 reference');
    assert.ok(lines.slice(3).every((l) => l.n === 64), 'full windows of 64 once 64 readings came');
    const spikes = spikeIds(readings);
    assert.deepEqual(lines.filter((l) => l.anomaly).map((l) => l.key), spikes.map((id) => Math.ceil((id + 1) / 16) * 16 - 1), 'each spike flagged in the window where it is new, nothing else');
    for (const c of ['covariance-gpu', 'covariance-cpu']) {
      assert.equal(s.components[c]!.gpu!.launches, windows, `${c}: one launch per window`);
      assert.equal(s.components[c]!.window![0]!.windows, windows);
    }
    assertBackend(s, 'covariance-gpu', true);
    assert.deepEqual(assertBackend(s, 'covariance-cpu', false), ['webasm'], 'the CPU worker runs the same kernel on its CPU backend');
    assert.equal(s.components['covariance-cpu']!.gpu!.fallback, false);
    assert.equal(s.failed, 0);
  });

  it('hybrid-matmul (module and Flux YAML): the split feeds both dealers, the printer verifies every product, both forms alike', async () => {
    const runs = await bothForms(
      { module: 'examples/hybrid-matmul', yaml: 'examples/hybrid-matmul/topology.yaml' },
      (form) => join(dir, `hybrid-${form}.csv`),
      (output) => ({
        ...untilAcked(80),
        overrides: { 'matmul.dim': 32, 'matmul.output': output, 'matmul.messages': 80, 'hstorm.split.window.ms': 500 },
        clusterConfig: VIRTUAL_GPU,
      }),
    );
    for (const { s, output } of Object.values(runs)) {
      assert.equal(s.acked, 80);
      assert.equal(s.failed, 0);
      assert.equal(verifiedIds(output).size, 80);
      assert.ok(s.components['cpu-dealer']!.executed > 0 && s.components['gpu-dealer']!.executed > 0, 'both sides of the split got tuples');
      assert.equal(s.components['cpu-dealer']!.executed + s.components['gpu-dealer']!.executed, s.components.printer!.executed);
      // The CPU dealer asked for a CPU backend and got one: not a fallback.
      assert.deepEqual(assertBackend(s, 'cpu-dealer', false), ['webasm']);
      assert.equal(s.components['cpu-dealer']!.gpu!.fallback, false);
      assertBackend(s, 'gpu-dealer', true);
      assert.ok(s.components.reader?.split?.length, 'the reader reports its split');
    }
    assert.deepEqual(verifiedIds(runs.yaml.output), verifiedIds(runs.module.output));
  });

  it("rolling-top-words (module and Flux YAML, two workers): the total ranker's top 5 counts every word the spouts emitted, both forms alike", async () => {
    // storm-starter's shape and timing (window 9 s, counts every 3 s, rankings every 2 s), spouts stopped after a known
    // number of words: while those words are all in the window, the total ranker's top 5 (all five words) sums to it.
    const perTask = 40;
    const total = 5 * perTask;
    type Top = [string, number][];
    const lines = (output: string): Top[] => {
      try {
        return readFileSync(output, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Top);
      } catch {
        return [];
      }
    };
    const complete = (output: string) => lines(output).find((top) => top.reduce((n, [, c]) => n + c, 0) === total);
    const runs = await bothForms(
      { module: 'examples/rolling-top-words', yaml: 'examples/rolling-top-words/topology.yaml' },
      (form) => join(dir, `rolling-${form}.jsonl`),
      (output) => ({
        durationSec: 120,
        drainSec: 1,
        until: () => complete(output) !== undefined,
        overrides: { 'topology.workers': 2, 'rtw.spout.words': perTask, 'rtw.spout.interval.ms': 10, 'rtw.output': output },
      }),
    );
    for (const [form, { s, output }] of Object.entries(runs)) {
      const top = complete(output);
      assert.ok(top, `${form}: no ranking of the total ranker counts all ${total} words: ${JSON.stringify(lines(output).slice(-3))}`);
      assert.deepEqual(top.map(([w]) => w).sort(), [...WORDS].sort(), `${form}: the top 5 of five words is all of them`);
      assert.deepEqual(top.map(([, c]) => c), top.map(([, c]) => c).sort((a, b) => b - a), `${form}: highest count first`);
      assert.equal(s.workers, 2);
      assert.equal(s.components.wordGenerator!.emitted, total);
      for (const c of ['counter', 'intermediateRanker', 'finalRanker']) assert.ok((s.components[c]!.ticks ?? 0) > 0, `${form}: ${c} got tick tuples`);
      assert.equal(s.components.counter!.executed, total, `${form}: the counter executed every word (ticks counted apart)`);
    }
  });

  it('word-count (module and Flux YAML): every word counted exactly once, both forms alike', async () => {
    const perSpout = 60;
    const runs = await bothForms(
      { module: 'examples/word-count', yaml: 'examples/word-count/topology.yaml' },
      (form) => join(dir, `counts-${form}.jsonl`),
      (output) => ({ ...untilAcked(perSpout), overrides: { 'wordcount.sentences': perSpout, 'wordcount.output': output } }),
    );
    const expected = new Map<string, number>();
    for (let id = 0; id < perSpout; id++) for (const w of SENTENCES[id % SENTENCES.length]!.split(' ')) expected.set(w, (expected.get(w) ?? 0) + 1);
    const counted: Record<string, number>[] = [];
    for (const { s, output } of Object.values(runs)) {
      assert.equal(s.acked, perSpout);
      assert.equal(s.failed, 0);
      assert.equal(s.workers, 2);
      const counts: Record<string, number> = {};
      for (const line of readFileSync(output, 'utf8').split('\n').filter(Boolean)) {
        for (const [w, n] of Object.entries((JSON.parse(line) as { counts: Record<string, number> }).counts)) {
          assert.equal(counts[w], undefined, `word "${w}" counted by two tasks`);
          counts[w] = n;
        }
      }
      counted.push(counts);
    }
    const sorted = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
    assert.deepEqual(sorted(counted[0]!), Object.fromEntries([...expected].sort(([a], [b]) => a.localeCompare(b))));
    assert.deepEqual(sorted(counted[1]!), sorted(counted[0]!));
  });
});
