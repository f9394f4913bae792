/**
 * `--filter` and `--env-filter`: Storm's own substitution test file
 * (third_party/apache-storm-flux/substitution-test.yaml with its
 * test.properties) gives what Storm's TCKTest.testVariableSubstitution
 * asserts; Java .properties parsing; columns mapped back through a marked
 * line; values filled as values (typed when alone and unquoted, never able
 * to add keys), and never shown in an error.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFlux } from '../../../flux/index.js';
import { FluxSource } from '../../../flux/flux-source.js';
import { parseProperties } from '../../../flux/properties-file.js';
import { markVariables, type Variables } from '../../../flux/substitution.js';
import { STORM_FLUX, thrown } from './flux-helpers.js';

const NO_VARIABLES: Variables = { properties: null, propertiesFile: null, env: null };

describe('flux: variables', () => {
  it("fills Storm's substitution-test.yaml as Storm's test expects: ${name}, a list, a list element, ${ENV-PATH}", () => {
    const env = { PATH: '/usr/bin:/bin' };
    const c = compileFlux(join(STORM_FLUX, 'substitution-test.yaml'), { filter: join(STORM_FLUX, 'test.properties'), envFilter: true, env });
    assert.equal(c.name, 'substitution-topology');
    assert.equal(c.plan.config['test.env.value'], '/usr/bin:/bin');
    assert.deepEqual(c.plan.config['list.property.target'], ['A string list']);
    assert.equal(c.plan.config['list.element.property.target'], 'A string list');
  });

  it('refuses ${ENV-…} without --env-filter, and an environment variable that is not set', async () => {
    const file = join(STORM_FLUX, 'substitution-test.yaml');
    const filter = join(STORM_FLUX, 'test.properties');
    const without = await thrown(() => compileFlux(file, { filter }));
    assert.equal(without.code, 'HSTORM_ERR_FLUX_VARIABLE');
    assert.match(without.message, /substitution-test\.yaml:\d+:\d+: \$\{ENV-PATH\}: environment variables are filled only with --env-filter/);
    const unset = await thrown(() => compileFlux(file, { filter, envFilter: true, env: {} }));
    assert.match(unset.message, /\$\{ENV-PATH\}: environment variable PATH is not set/);
  });

  describe('on files of their own', () => {
    let dir: string;
    beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-flux-vars-'))));
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const write = (text: string): string => {
      writeFileSync(join(dir, 'f.yaml'), text);
      return join(dir, 'f.yaml');
    };
    const props = (entries: Record<string, string>): Variables => ({ ...NO_VARIABLES, properties: new Map(Object.entries(entries)), propertiesFile: 'p.properties' });
    const env = (entries: Record<string, string>): Variables => ({ ...NO_VARIABLES, env: entries });
    const SPOUT = 'spouts: [{ id: s, className: "org.apache.storm.testing.TestWordSpout" }]\n';

    it('refuses an index past the end of a list, and an index into a value that is not a list', async () => {
      const file = write('a: ${l[2]}\nb: ${s[0]}\n');
      const vars = (l: string) => props({ l, s: 'plain' });
      assert.match((await thrown(() => FluxSource.read(file, vars('[x, y]')))).message, /f\.yaml:1:4: \$\{l\[2\]\}: "l" has 2 element\(s\), no index 2/);
      assert.match((await thrown(() => FluxSource.read(file, vars('[x, y, z]')))).message, /f\.yaml:2:4: \$\{s\[0\]\}: "s" is not a list/);
    });

    it('fills every variable of a line, leaves comments alone (never looked up), and maps columns back to the file as written', () => {
      const text = 'k: ${a} ${b} end\n# ${unset} in a comment\nm: 1 # ${unset} after a value\n';
      const src = FluxSource.read(write(text), props({ a: 'LONG-VALUE', b: 'x' }));
      assert.deepEqual(src.data(), { k: 'LONG-VALUE x end', m: 1 });
      const { columns, uses } = markVariables(text, 'f.yaml');
      assert.deepEqual(
        uses.map((u) => [u.expr, u.line, u.column]),
        [
          ['a', 1, 4],
          ['b', 1, 9],
          ['unset', 3, 8],
        ],
      );
      // Each placeholder is 3 characters (U+E000, the index, U+E001): "end" is at column 12 marked, 14 as written; a
      // column inside a placeholder maps to its `${`.
      assert.equal(columns.original(1, 12), 14);
      assert.equal(columns.original(1, 5), 4);
      assert.equal(columns.original(1, 2), 2);
      assert.equal(columns.original(2, 3), 3);
    });

    it('fills values as values: a number, true, a list, a map when alone and unquoted; text when quoted or inside a string; in flow maps too', () => {
      const src = FluxSource.read(
        write('n: ${n}\nq: "${n}"\nb: ${b}\nl: ${l}\nm: ${m}\nin: "port ${n}!"\nflow: { x: ${n}, y: [${n}, ${b}] }\nhash: ${h}\ncolon: ${c}\n'),
        props({ n: '8', b: 'true', l: '["orders", "refunds"]', m: '{ a: 1 }', h: 'pa#ss', c: 'a: b' }),
      );
      assert.deepEqual(src.data(), { n: 8, q: '8', b: true, l: ['orders', 'refunds'], m: { a: 1 }, in: 'port 8!', flow: { x: 8, y: [8, true] }, hash: 'pa#ss', colon: 'a: b' });
    });

    it('a value with newlines stays one value: it cannot add keys to the file, as Storm\'s pasting would', () => {
      // Pasted as text (Storm, and hstorm before), the second line would be a top-level key of the file.
      const injected = 'x\nbolts: [{ id: injected, className: "org.apache.storm.testing.TestWordCounter" }]';
      const plain = FluxSource.read(write('name: "t"\nconfig:\n  my.note: ${ENV-NOTE}\n' + SPOUT), env({ NOTE: injected }));
      assert.deepEqual(plain.data(), { name: 't', config: { 'my.note': injected }, spouts: [{ id: 's', className: 'org.apache.storm.testing.TestWordSpout' }] });
      const quoted = FluxSource.read(write('config:\n  my.note: "${ENV-NOTE}"\n' + SPOUT), env({ NOTE: injected }));
      assert.deepEqual(quoted.data(), { config: { 'my.note': injected }, spouts: [{ id: 's', className: 'org.apache.storm.testing.TestWordSpout' }] });
    });

    it('never shows what a variable held in a validation error: the ${…} as written instead', async () => {
      const secret = 'hunter2 NOT A NUMBER!';
      const opts = { envFilter: true, env: { DB_PASSWORD: secret } };
      const cases: [string, RegExp][] = [
        [`${SPOUT}bolts: [{ id: b, className: "org.apache.storm.testing.TestWordCounter", parallelism: \${ENV-DB_PASSWORD} }]\n`, /bolts\[0\]\.parallelism|parallelism/],
        [`${SPOUT}config:\n  topology.workers: \${ENV-DB_PASSWORD}\n`, /topology\.workers/],
        [`${SPOUT}config:\n  topology.state.provider.config: { url: "redis://u:\${ENV-DB_PASSWORD}@h:1", bogus: 1 }\n`, /topology\.state\.provider\.config/],
        [`${SPOUT}bolts: [{ id: b, className: "org.apache.storm.testing.TestWordCounter" }]\nstreams: [{ from: s, to: b, grouping: { type: \${ENV-DB_PASSWORD} } }]\n`, /grouping\.type/],
        [`${SPOUT}bolts: [{ id: b, className: "org.apache.storm.testing.TestWordCounter" }]\nstreams: [{ from: \${ENV-DB_PASSWORD}, to: b, grouping: { type: SHUFFLE } }]\n`, /from/],
        [`name: \${ENV-DB_PASSWORD}\n${SPOUT}`, /^.*name/],
      ];
      for (const [text, about] of cases) {
        const err = await thrown(() => compileFlux(write(text), opts));
        assert.match(err.code ?? '', /^HSTORM_ERR_FLUX_/, err.message);
        assert.match(err.message, about);
        assert.ok(!err.message.includes(secret) && !(err.stack ?? '').includes(secret), `the value is echoed: ${err.message}`);
        assert.ok(!err.message.includes('hunter2'), err.message);
        assert.match(err.message, /\$\{ENV-DB_PASSWORD\}|not shown/, err.message);
      }
      // A short value too (the last-resort scrub of compile-flux.ts leaves values under 3 characters alone).
      const short = await thrown(() => compileFlux(write(`${SPOUT}bolts: [{ id: b, className: "org.apache.storm.testing.TestWordCounter", parallelism: \${ENV-P} }]\n`), { envFilter: true, env: { P: 'Q!' } }));
      assert.match(short.message, /bolts\[0\]\.parallelism \(id "b"\): expected a whole number ≥ 1, got \$\{ENV-P\}$/);
    });
  });

  it('reads Java .properties: separators, comments, continuations, escapes', () => {
    const p = parseProperties(['# comment', '! also a comment', 'a=1', 'b : two words ', 'c three', 'd = first \\', '    second', 'e=tab\\tend\\u0041', '', 'key\\ with\\ blank = v'].join('\n'));
    assert.deepEqual(Object.fromEntries(p), { a: '1', b: 'two words ', c: 'three', d: 'first second', e: 'tab\tendA', 'key with blank': 'v' });
  });
});
