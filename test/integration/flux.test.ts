/**
 * Flux files through `hstorm local` and the real binary: Storm's own
 * flux-examples multilang.yaml and simple_windowing.yaml and flux-core
 * shell_test.yaml run unchanged
 * with Storm's scripts (third_party/apache-storm-flux/: randomsentence.js,
 * splitsentence.py, storm.js, storm.py in resources/ beside the YAML); then
 * the command line — --dry-run with --filter and --env-filter (what a dry
 * run may and may not run is flux-trust.test.ts), a Flux error
 * as `{ code, message }`, submit --dry-run, schedule of a Flux file, and
 * --filter refused for a module. The examples' YAML forms run in
 * examples.test.ts; the errors of each bad file in test/unit/flux/.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';
import type { RunSummary } from '../../cli/run-summary.js';
import { untilAcked } from '../helpers/until-acked.js';
import { runHstorm } from '../helpers/hstorm-cli.js';
import { openTopologySource } from '../../cli/topology-source.js';
import { loadConfiguredTopology } from '../../worker/index.js';

const STORM_FLUX = join(PACKAGE_ROOT, 'third_party', 'apache-storm-flux');

/** What Storm's word-count shell topology does with the sentences its spout emitted: split, counted, logged; nothing lost. */
function assertShellTopology(s: RunSummary, sentences: number): void {
  assert.equal(s.topology, 'shell-topology');
  assert.equal(s.failed, 0);
  assert.ok(s.acked >= sentences, `${s.acked} sentences acked`);
  const c = s.components;
  assert.equal(c.splitsentence!.executed, c['sentence-spout']!.emitted, 'every sentence reached the Python split bolt');
  assert.equal(c.count!.executed, c.splitsentence!.emitted, 'every word reached TestWordCounter');
  assert.equal(c.log!.executed, c.count!.emitted, 'every count reached LogInfoBolt');
  assert.ok(c.count!.emitted > sentences * 4, 'Storm\'s sentences have five words or more');
}

describe("flux: Storm's Flux files and the command line", function () {
  this.timeout(120_000);
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-flux-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("runs Storm's flux-examples multilang.yaml unchanged: FluxShellSpout (randomsentence.js), FluxShellBolt (splitsentence.py), TestWordCounter, LogInfoBolt", async () => {
    const s = await runLocal({ module: join(STORM_FLUX, 'multilang.yaml'), ...untilAcked(10, 60), overrides: {} });
    assertShellTopology(s, 10);
  });

  it("runs Storm's flux-core shell_test.yaml unchanged, its addComponentConfig calls in the components' config", async () => {
    const s = await runLocal({ module: join(STORM_FLUX, 'shell_test.yaml'), ...untilAcked(10, 60), overrides: {} });
    assertShellTopology(s, 10);
    const { def } = await loadConfiguredTopology((await openTopologySource(join(STORM_FLUX, 'shell_test.yaml'))).modulePath, {});
    for (const id of ['sentence-spout', 'splitsentence']) {
      assert.deepEqual(def.components.find((c) => c.id === id)!.config, { 'rabbitmq.configfile': 'etc/rabbit.yml', 'publisher.data_paths': ['actions'] });
    }
  });

  it("runs Storm's flux-examples simple_windowing.yaml unchanged: BaseWindowedBolt$Count components handed to withWindow, windows of 5 sliding by 3", async () => {
    const s = await runLocal({
      module: join(STORM_FLUX, 'simple_windowing.yaml'),
      durationSec: 90,
      drainSec: 1,
      until: (x) => (x.components['bolt-1']?.window?.[0]?.windows ?? 0) >= 4,
      overrides: {},
    });
    const w = s.components['bolt-1']!.window![0]!;
    assert.match(w.spec, /5 tuples.*3 tuples/);
    assert.ok(w.windows >= 4, `${w.windows} windows`);
    // A sliding count window of 5 every 3 tuples: 3 tuples in the first, 5 in every later one.
    assert.equal(w.maxWindowTuples, 5);
    assert.equal(s.components['bolt-2']!.executed, s.components['bolt-1']!.emitted, 'TestPrintBolt printed every window size');
    assert.equal(s.failed, 0);
  });

  it('--dry-run prints the topology with --filter and --env-filter filled, runs nothing; submit --dry-run sends nothing', async () => {
    const file = join(STORM_FLUX, 'substitution-test.yaml');
    const args = ['--filter', join(STORM_FLUX, 'test.properties'), '--env-filter', '--dry-run'];
    const local = await runHstorm(['local', file, ...args]);
    assert.equal(local.code, 0, local.stderr);
    assert.match(local.stdout, /^topology substitution-topology from \S*substitution-test\.yaml \(dry run: checked without loading its modules or making its objects; nothing started or submitted\)$/m);
    assert.match(local.stdout, /^ {2}sentence-spout {2}org\.apache\.storm\.flux\.wrappers\.spouts\.FluxShellSpout {2}parallelism 1$/m);
    assert.match(local.stdout, /^ {2}splitsentence → count {2}FIELDS \[word\]$/m);
    assert.match(local.stdout, /^ {2}list\.property\.target: \["A string list"\]$/m);
    assert.match(local.stdout, new RegExp(`^  test\\.env\\.value: ${JSON.stringify(process.env.PATH).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
    // No nimbus listens on this port: a submit that tried to reach it would fail.
    const submit = await runHstorm(['submit', file, ...args, '--json', '-c', 'nimbus.http.port=1']);
    assert.equal(submit.code, 0, submit.stderr);
    assert.equal((JSON.parse(submit.stdout) as { name: string }).name, 'substitution-topology');
  });

  it('reports a Flux error as { code, message } with --json, and refuses --filter for a module', async () => {
    const bad = await runHstorm(['local', join(PACKAGE_ROOT, 'test/fixtures/flux/bad/unknown-component.yaml'), '--json']);
    assert.equal(bad.code, 2);
    const err = JSON.parse(bad.stdout) as { code: string; message: string };
    assert.equal(err.code, 'HSTORM_ERR_FLUX_REFERENCE');
    assert.match(err.message, /unknown-component\.yaml:14:11: streams\[1\]\.from: "spilt": no spout or bolt has this id; did you mean "split"\?/);
    const module = await runHstorm(['local', join(PACKAGE_ROOT, 'examples/word-count'), '--filter', 'x.properties', '--json']);
    assert.equal((JSON.parse(module.stdout) as { code: string }).code, 'HSTORM_ERR_CLI_USAGE');
  });

  it('schedule places a Flux file on a described cluster', async () => {
    const cluster = join(dir, 'cluster.json');
    writeFileSync(cluster, JSON.stringify({ supervisors: [{ id: 'n1', host: '10.0.0.5', ports: [6700, 6701], cpus: 4, memoryMB: 8192 }] }));
    const r = await runHstorm(['schedule', join(PACKAGE_ROOT, 'examples/word-count/topology.yaml'), '--cluster', cluster, '--strategy', 'even']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^topology dry-run \(even\): 2 workers, 0 executors unassigned$/m);
    assert.match(r.stdout, /count#\d+/);
  });
});
