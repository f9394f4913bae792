/**
 * What a Flux file can do when someone runs it, through the real `hstorm`
 * binary (docs/flux.md, "What a Flux file can do"; docs/security.md, "Flux
 * trust model"):
 *   - the issue's attack, `className: "node:child_process#default"` with
 *     `factory: execSync`, is refused — in a dry run and in a run — unless
 *     `--flux-allow-builtin node:child_process` is given, and even then a dry
 *     run runs nothing;
 *   - a dry run imports no module the file names: neither a module's
 *     top-level code nor a constructor runs (a submit does run them: the
 *     control that shows the markers would catch it);
 *   - secrets in an included `config:` are masked in the dry run's output;
 *   - a YAML alias bomb is an error with its code and position, no stack.
 * Marker files say whether code ran.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../cli/local-run.js';
import { runHstorm } from '../helpers/hstorm-cli.js';

// No nimbus listens on port 1: a submit that gets as far as sending fails there, after loading the topology.
const NO_NIMBUS = ['-c', 'nimbus.http.port=1'];

describe('flux: what running a Flux file runs', function () {
  this.timeout(120_000);
  let dir: string;
  let pwned: string;
  let top: string;
  let made: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-flux-trust-'));
    pwned = join(dir, 'PWNED');
    top = join(dir, 'TOP-LEVEL-RAN');
    made = join(dir, 'CONSTRUCTOR-RAN');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, text: string): string => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  /** The issue's file: a component made by child_process.execSync, handed to a spout so that building it makes it. */
  const attack = () =>
    write(
      'attack.yaml',
      [
        'name: attack',
        'components:',
        '  - id: "pwn"',
        '    className: "node:child_process#default"',
        '    factory: "execSync"',
        `    factoryArgs: ["touch ${pwned}"]`,
        'spouts:',
        '  - id: "s"',
        '    className: "org.apache.storm.testing.TestWordSpout"',
        '    constructorArgs: [ref: "pwn"]',
        '',
      ].join('\n'),
    );

  it('refuses node:child_process#default with factory execSync, in a dry run and in a run, and runs it in neither', async () => {
    const file = attack();
    for (const args of [
      ['local', file, '--dry-run'],
      ['submit', file, '--dry-run'],
      ['local', file, '-d', '5'],
      ['submit', file, ...NO_NIMBUS],
    ]) {
      const r = await runHstorm(args);
      assert.equal(existsSync(pwned), false, `${args.join(' ')} ran the command`);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /attack\.yaml:4:16: components\[0\]\.className: "node:child_process#default": node:child_process is one of Node\.js's built-in modules, which a Flux file may not name.*--flux-allow-builtin node:child_process.*\[HSTORM_ERR_FLUX_CLASS\]/);
    }
  });

  it('with --flux-allow-builtin a dry run still runs nothing (it prints the factory); a run then does run it', async () => {
    const file = attack();
    const dry = await runHstorm(['local', file, '--dry-run', '--flux-allow-builtin', 'node:child_process']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^components:\n {2}pwn {2}node:child_process#default {2}factory execSync$/m);
    assert.equal(existsSync(pwned), false, 'the dry run ran the command');
    // The control: allowed and not a dry run, building the topology makes the component — the marker would show it.
    await runHstorm(['submit', file, '--flux-allow-builtin', 'node:child_process', ...NO_NIMBUS]);
    assert.equal(existsSync(pwned), true, 'the allowed run did not make the component: the marker proves nothing');
  });

  it("imports none of the file's modules in a dry run: no top-level code, no constructor; a submit runs both", async () => {
    write(
      'words.mjs',
      [
        "import { writeFileSync } from 'node:fs';",
        "import { Spout } from 'hstorm';",
        `writeFileSync(${JSON.stringify(top)}, 'module top-level code ran');`,
        'export class Words extends Spout {',
        `  constructor() { super(); writeFileSync(${JSON.stringify(made)}, 'constructor ran'); }`,
        '  nextTuple() {}',
        "  declareOutputFields(d) { d.declare(['word']); }",
        '}',
        '',
      ].join('\n'),
    );
    const file = write('topo.yaml', 'name: words\nspouts:\n  - id: "words"\n    className: "./words.mjs#Words"\n    parallelism: 2\n');
    for (const command of ['local', 'submit']) {
      const r = await runHstorm([command, file, '--dry-run']);
      assert.equal(existsSync(top), false, `${command} --dry-run ran the module's top-level code`);
      assert.equal(existsSync(made), false, `${command} --dry-run made the spout`);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^topology words from \S*topo\.yaml \(dry run: checked without loading its modules or making its objects; nothing started or submitted\)$/m);
      assert.match(r.stdout, /^spouts:\n {2}words {2}\.\/words\.mjs#Words {2}parallelism 2$/m);
    }
    // A missing export is still found without importing the module.
    const typo = write('typo.yaml', 'spouts:\n  - id: "words"\n    className: "./words.mjs#Wrods"\n');
    const t = await runHstorm(['local', typo, '--dry-run']);
    assert.equal(t.code, 2);
    assert.match(t.stderr, /typo\.yaml:3:16: spouts\[0\]\.className: "\.\/words\.mjs#Wrods": the module has no export "Wrods"; it exports "Words" \[HSTORM_ERR_FLUX_CLASS\]/);
    assert.equal(existsSync(top), false);
    // The control: a submit loads the topology (a Flux file runs code as a topology module does).
    await runHstorm(['submit', file, ...NO_NIMBUS]);
    assert.equal(existsSync(top), true, 'submit did not run the module: the markers prove nothing');
    assert.equal(existsSync(made), true);
  });

  it("masks the secrets of an included config: in a dry run's output, text and JSON", async () => {
    mkdirSync(join(dir, 'conf'));
    write(
      'conf/db.yaml',
      [
        'config:',
        '  my.db.password: "hunter2"',
        '  my.api.token: "hunter3"',
        '  my.db.url: "postgres://app:hunter4@AT@db.example:5432/orders"',
        '  topology.state.provider.config: { url: "redis://probe:hunter5@127.0.0.1:6379" }',
        '  my.plain: "kept"',
        '',
      ].join('\n'),
    );
    const file = write('topo.yaml', 'includes: [{ file: "conf/db.yaml" }]\nspouts: [{ id: s, className: "org.apache.storm.testing.TestWordSpout" }]\n');
    const text = await runHstorm(['local', file, '--dry-run']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^ {2}my\.db\.password: "\*\*\*"$/m);
    assert.match(text.stdout, /^ {2}my\.api\.token: "\*\*\*"$/m);
    assert.match(text.stdout, /^ {2}my\.db\.url: "postgres:\/\/app:\*\*\*@db\.example:5432\/orders"$/m);
    assert.match(text.stdout, /^ {2}topology\.state\.provider\.config: \{"url":"redis:\/\/probe:\*\*\*@127\.0\.0\.1:6379"\}$/m);
    assert.match(text.stdout, /^ {2}my\.plain: "kept"$/m);
    const json = await runHstorm(['submit', file, '--dry-run', '--json']);
    assert.equal(json.code, 0, json.stderr);
    for (const out of [text.stdout + text.stderr, json.stdout + json.stderr]) assert.doesNotMatch(out, /hunter\d|AT@/);
    assert.equal((JSON.parse(json.stdout) as { config: Record<string, unknown> }).config['my.db.password'], '***');
  });

  it('says where a YAML alias bomb is, with its code, and prints no stack', async () => {
    const r = await runHstorm(['local', join(PACKAGE_ROOT, 'test/fixtures/flux/bad/alias-bomb.yaml'), '--dry-run']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^hstorm: \S*alias-bomb\.yaml:7:10: this alias would expand the document past 100 alias expansions .*\[HSTORM_ERR_FLUX_SYNTAX\]$/m);
    assert.doesNotMatch(r.stderr, /ReferenceError|\n\s+at /);
  });
});
