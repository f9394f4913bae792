/**
 * No `hstorm local` run and no hstorm/testing run leaves a temporary directory behind, passed or failed — a run whose
 * bolt throws, one refused by validation, one whose worker crash-loops, a TypeScript module (compiled into the temp
 * dir). Each runs in its own process with TMPDIR pointing at a directory of the test's, which must be empty once it
 * has exited.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../../cli/local-run.js';

const HSTORM = join(PACKAGE_ROOT, 'bin/hstorm.js');

/** Runs node with `args`, TMPDIR = `tmp`; resolves with the exit code and output. */
function run(args: string[], tmp: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

describe('no temporary directory left behind', function () {
  this.timeout(300_000);
  let home: string;
  let tmp: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'hstorm-notemp-test-'));
    tmp = mkdtempSync(join(home, 'tmp-'));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const empty = (why: string, out: string) => assert.deepEqual(readdirSync(tmp), [], `${why} left ${readdirSync(tmp).join(', ')} behind\n${out}`);

  it('by hstorm local: a clean run, a run whose bolt throws, a crash-looping worker', async () => {
    const clean = await run([HSTORM, 'local', join(PACKAGE_ROOT, 'examples/word-count'), '--duration', '1', '-c', 'wordcount.sentences=5', '-c', `wordcount.output=${join(home, 'wc.jsonl')}`], tmp);
    assert.equal(clean.code, 0, clean.out);
    empty('a clean run', clean.out);
    // Long enough for the bolt to throw at all on a loaded machine (its workers may take seconds to start); hstorm
    // local has no condition to stop on, and a run where nothing failed would not print the hint asserted below.
    const throwing = await run([HSTORM, 'local', join(PACKAGE_ROOT, 'test/fixtures/always-throwing-bolt-topology'), '--duration', '15', '-c', 'throwing.messages=20'], tmp);
    assert.equal(throwing.code, 0, throwing.out);
    assert.match(throwing.out, /--keep-logs DIR/);
    empty('a run whose bolt threw', throwing.out);
    const looping = await run([HSTORM, 'local', join(PACKAGE_ROOT, 'test/fixtures/prepare-throws-topology'), '--duration', '120'], tmp);
    assert.equal(looping.code, 2, looping.out);
    empty('a crash-looping run', looping.out);
  });

  it('by hstorm local of a TypeScript module, refused by validation', async () => {
    const mod = join(home, 'bad.ts');
    writeFileSync(
      mod,
      [
        "import { TopologyBuilder, Spout, BasicBolt, type OutputFieldsDeclarer } from 'hstorm';",
        "class S extends Spout { nextTuple(): void {} declareOutputFields(d: OutputFieldsDeclarer): void { d.declare(['x']); } }",
        'class B extends BasicBolt { execute(): void {} }',
        'export default () => {',
        '  const b = new TopologyBuilder();',
        "  b.setSpout('s', () => new S());",
        "  b.setBolt('b', () => new B()).shuffleGrouping('nope');",
        '  return b.createTopology();',
        '};',
      ].join('\n'),
    );
    const r = await run([HSTORM, 'local', mod, '--duration', '1', '--no-type-check'], tmp);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /subscribes to unknown component "nope"/);
    empty('a refused TypeScript module', r.out);
  });

  it('by hstorm/testing: a completeTopology that passes and one that times out', async () => {
    const testing = pathToFileURL(join(PACKAGE_ROOT, 'dist/testing/index.js')).href;
    const wc = join(PACKAGE_ROOT, 'dist/examples/word-count/index.js');
    const script = (opts: string) =>
      `import { completeTopology } from ${JSON.stringify(testing)};\n` +
      `completeTopology(${JSON.stringify(wc)}, ${opts}).then(() => console.log('completed'), (e) => { console.log(e.code); process.exitCode = 3; });\n`;
    const passing = join(home, 'passing.mjs');
    writeFileSync(passing, script(`{ mockedSources: { sentences: [['a b'], ['c']] }, config: { 'topology.workers': 1, 'wordcount.output': ${JSON.stringify(join(home, 'out.jsonl'))} } }`));
    const p = await run([passing], tmp);
    assert.match(p.out, /completed/, p.out);
    empty('a passing completeTopology', p.out);
    // The real spout never stops: without a mock the topology is never quiet, so this one times out.
    const failing = join(home, 'failing.mjs');
    writeFileSync(failing, script(`{ timeoutMs: 3000, config: { 'topology.workers': 1, 'wordcount.output': ${JSON.stringify(join(home, 'out2.jsonl'))} } }`));
    const f = await run([failing], tmp);
    assert.equal(f.code, 3, f.out);
    assert.match(f.out, /HSTORM_ERR_TESTING_TIMEOUT/);
    empty('a completeTopology that timed out', f.out);
  });
});
