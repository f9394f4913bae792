/**
 * `includes`, merged as Storm's FluxParser merges them: Storm's own
 * include_test.yaml (a resource include of shell_test.yaml, override false),
 * override true and false on name, config, components, spouts and bolts,
 * streams appended, includes of includes (which Storm does not read), paths
 * from the including file, and a missing file.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFlux } from '../../../flux/index.js';
import { STORM_FLUX, thrown } from './flux-helpers.js';

const SPOUT = 'org.apache.storm.testing.TestWordSpout';
const BOLT = 'org.apache.storm.flux.wrappers.bolts.LogInfoBolt';
const COUNTER = 'org.apache.storm.testing.TestWordCounter';

describe('flux: includes', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-flux-includes-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string) => {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it("reads Storm's include_test.yaml: shell_test.yaml included as a resource, the including file's name kept (override false)", () => {
    mkdirSync(join(dir, 'configs'));
    copyFileSync(join(STORM_FLUX, 'shell_test.yaml'), join(dir, 'configs', 'shell_test.yaml'));
    copyFileSync(join(STORM_FLUX, 'include_test.yaml'), join(dir, 'include_test.yaml'));
    const c = compileFlux(join(dir, 'include_test.yaml'));
    assert.equal(c.name, 'include-topology');
    assert.deepEqual(
      c.plan.spouts.map((s) => s.id),
      ['sentence-spout'],
    );
    assert.deepEqual(
      c.plan.bolts.map((b) => b.id),
      ['splitsentence', 'log', 'count'],
    );
    assert.equal(c.plan.streams.length, 3);
    assert.deepEqual(c.plan.config, { 'topology.workers': 1 });
    assert.equal(c.warnings.length, 1);
    assert.match(c.warnings[0]!, /configs\/shell_test\.yaml:\d+:\d+: name of an include with override: false is ignored/);
  });

  it('override: true replaces by id and key, override: false only adds; streams are appended; includes of includes are read', () => {
    write(
      'sub/base.yaml',
      `name: base\nconfig: { topology.workers: 3, base.only: 1 }\nincludes: [{ file: "deeper.yaml" }]\n` +
        `spouts: [{ id: words, className: "${SPOUT}", parallelism: 4 }]\n` +
        `bolts: [{ id: log, className: "${BOLT}", parallelism: 5 }]\n` +
        `streams: [{ from: words, to: log, grouping: { type: SHUFFLE } }]\n`,
    );
    write('sub/deeper.yaml', `bolts: [{ id: count, className: "${COUNTER}" }]\nstreams: [{ from: words, to: count, grouping: { type: FIELDS, args: [word] } }]\n`);
    const main = write('main.yaml', `name: main\nconfig: { topology.workers: 1 }\nincludes:\n  - { file: "sub/base.yaml", override: false }\nspouts: [{ id: words, className: "${SPOUT}", parallelism: 2 }]\n`);
    const kept = compileFlux(main);
    assert.equal(kept.name, 'main');
    assert.deepEqual(kept.plan.config, { 'topology.workers': 1, 'base.only': 1 });
    assert.equal(kept.plan.spouts[0]!.parallelism, 2);
    assert.deepEqual(
      kept.plan.bolts.map((b) => [b.id, b.parallelism]),
      [
        ['log', 5],
        ['count', 1],
      ],
      "the include's bolts are added, and so are those of the file it includes",
    );
    assert.deepEqual(
      kept.plan.streams.map((s) => `${s.from}→${s.to}`),
      ['words→log', 'words→count'],
    );
    assert.ok(kept.warnings.some((w) => /base\.yaml:\d+:\d+: spout "words" of an include with override: false is ignored/.test(w)), kept.warnings.join('\n'));

    writeFileSync(main, `name: main\nconfig: { topology.workers: 1 }\nincludes:\n  - { file: "sub/base.yaml", override: true }\nspouts: [{ id: words, className: "${SPOUT}", parallelism: 2 }]\n`);
    const replaced = compileFlux(main);
    assert.equal(replaced.name, 'base');
    assert.deepEqual(replaced.plan.config, { 'topology.workers': 3, 'base.only': 1 });
    assert.equal(replaced.plan.spouts[0]!.parallelism, 4);
    assert.deepEqual(replaced.warnings, []);
  });

  it('names the file it looked for when an include is missing', async () => {
    const main = write('main.yaml', `includes:\n  - file: "nowhere.yaml"\nspouts: [{ id: words, className: "${SPOUT}" }]\n`);
    const err = await thrown(() => compileFlux(main));
    assert.equal(err.code, 'HSTORM_ERR_FLUX_INCLUDE');
    assert.match(err.message, /main\.yaml:2:11: includes\[0\]\.file: "nowhere\.yaml" not found \(looked for \S*nowhere\.yaml\)/);
  });
});
