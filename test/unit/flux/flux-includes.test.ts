/**
 * `includes`, merged as Storm's FluxParser merges them: Storm's own
 * include_test.yaml (a resource include of shell_test.yaml, override false),
 * override true and false on name, config, components, spouts and bolts,
 * streams appended, includes of includes (which Storm does not read), paths
 * from the including file, and a missing file; includes confined to the
 * top-level file's directory (real paths, symlinks and `resource: true`
 * included) unless --flux-include-dir allows more, and an included file that
 * is not a Flux file refused without a word of it.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

  describe('what an include may read', () => {
    // A file outside the Flux file's tree, holding what an attacker would want printed.
    let outside: string;
    beforeEach(() => {
      outside = mkdtempSync(join(tmpdir(), 'hstorm-flux-outside-'));
      writeFileSync(join(outside, 'secrets.yaml'), 'db.password: hunter2-outside\nroot: x:0:0:root:/root:/bin/bash\n');
      writeFileSync(join(outside, 'bolts.yaml'), `bolts: [{ id: log, className: "${BOLT}" }]\n`);
    });
    afterEach(() => rmSync(outside, { recursive: true, force: true }));
    const mainIncluding = (inc: string) => write('topo/main.yaml', `includes:\n  - ${inc}\nspouts: [{ id: words, className: "${SPOUT}" }]\n`);

    it('refuses a file outside the Flux file\'s directory: an absolute path, ../, resource: true with ../, and a symlink that leads out, before reading it', async () => {
      symlinkSync(outside, join(dir, 'topo-link'));
      mkdirSync(join(dir, 'topo'), { recursive: true });
      symlinkSync(join(outside, 'secrets.yaml'), join(dir, 'topo', 'inside-looking.yaml'));
      const attempts = [
        `{ file: "${join(outside, 'secrets.yaml')}" }`,
        `{ file: "../../${outside.split('/').pop()}/secrets.yaml" }`,
        '{ file: "/etc/passwd" }',
        `{ resource: true, file: "../../${outside.split('/').pop()}/secrets.yaml" }`,
        '{ file: "inside-looking.yaml" }',
        '{ file: "../topo-link/secrets.yaml" }',
        '{ file: "../topo-link/missing.yaml" }',
      ];
      for (const inc of attempts) {
        const err = await thrown(() => compileFlux(mainIncluding(inc)));
        assert.equal(err.code, 'HSTORM_ERR_FLUX_INCLUDE', `${inc}: ${err.message}`);
        assert.match(err.message, /main\.yaml:2:\d+: includes\[0\]\.file: "[^"]+" (is|resolves \(through a symlink\) to a file) outside the directory of the top-level Flux file \(\S*topo\)/, inc);
        assert.match(err.message, /--flux-include-dir/);
        assert.doesNotMatch(err.message, /hunter2|root:|not found/, inc);
      }
    });

    it('--flux-include-dir allows another directory, by its real path', () => {
      const c = compileFlux(mainIncluding(`{ file: "${join(outside, 'bolts.yaml')}" }`), { includeDirs: [outside] });
      assert.deepEqual(
        c.plan.bolts.map((b) => b.id),
        ['log'],
      );
    });

    it('refuses an included file that is not a Flux file without quoting its keys or values', async () => {
      const inside = (name: string, text: string) => write(`topo/${name}`, text);
      inside('secrets.yaml', 'db.password: hunter2-inside\nspouts: []\n');
      inside('env.yaml', 'DB_PASSWORD=hunter2-dotenv\n');
      inside('broken.yaml', 'a: *hunter2alias\n');
      inside('not-yaml.yaml', 'key: [hunter2-unclosed\n');
      for (const [file, says] of [
        ['secrets.yaml', /"secrets\.yaml" is not a Flux file: the top-level key at \S*secrets\.yaml:1:1 is none of Flux's \(name, config, components, spouts, bolts, streams, includes, topologySource, workerHooks\); nothing of the file is shown/],
        ['env.yaml', /a Flux file is a map of name, config/],
        ['broken.yaml', /this alias names no anchor defined before it/],
        ['not-yaml.yaml', /not valid YAML \(an included file: its parser message is not shown\)/],
      ] as const) {
        const err = await thrown(() => compileFlux(mainIncluding(`{ file: "${file}" }`)));
        assert.match(err.message, says, err.message);
        assert.doesNotMatch(err.message, /hunter2|password|DB_/i, err.message);
      }
    });
  
    it("never quotes an included config's secrets in an error", async () => {
      write('topo/db.yaml', 'config:\n  topology.state.provider.config: { url: "redis://probe:hunter2@AT@127.0.0.1:6379", keyPrefix: "x:", bogus: 1 }\n');
      const err = await thrown(() => compileFlux(mainIncluding('{ file: "db.yaml" }')));
      assert.equal(err.code, 'HSTORM_ERR_FLUX_INVALID');
      assert.match(err.message, /db\.yaml:2:3: config\.topology\.state\.provider\.config: invalid value for config key "topology\.state\.provider\.config" in the topology config: \(the value is not shown: it holds a secret\)/);
      assert.doesNotMatch(err.message, /hunter2|AT@/);
    });
  });
});
