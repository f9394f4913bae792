/**
 * `--filter` and `--env-filter`: Storm's own substitution test file
 * (third_party/apache-storm-flux/substitution-test.yaml with its
 * test.properties) gives what Storm's TCKTest.testVariableSubstitution
 * asserts; Java .properties parsing; columns mapped back through a filled
 * line.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { compileFlux } from '../../../flux/index.js';
import { parseProperties } from '../../../flux/properties-file.js';
import { substitute, type Variables } from '../../../flux/substitution.js';
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

  it('refuses an index past the end of a list, and an index into a value that is not a list', async () => {
    const text = 'a: ${l[2]}\nb: ${s[0]}\n';
    const vars = (l: string) => ({ ...NO_VARIABLES, properties: new Map([['l', l], ['s', 'plain']]), propertiesFile: 'p.properties' });
    assert.match((await thrown(() => substitute(text, vars('[x, y]'), 'f.yaml'))).message, /^f\.yaml:1:4: \$\{l\[2\]\}: "l" has 2 element\(s\), no index 2/);
    assert.match((await thrown(() => substitute(text, vars('[x, y, z]'), 'f.yaml'))).message, /^f\.yaml:2:4: \$\{s\[0\]\}: "s" is not a list/);
  });

  it('fills every variable of a line, leaves comment lines alone, and maps columns back to the file as written', () => {
    const vars = { ...NO_VARIABLES, properties: new Map([['a', 'LONG-VALUE'], ['b', 'x']]), propertiesFile: 'p' };
    const { text, columns } = substitute('k: ${a} ${b} end\n# ${unset} in a comment\n', vars, 'f.yaml');
    assert.equal(text, 'k: LONG-VALUE x end\n# ${unset} in a comment\n');
    // "end" is at column 17 filled, column 14 as written; a column inside a filled value maps to its `${`.
    assert.equal(columns.original(1, 17), 14);
    assert.equal(columns.original(1, 8), 4);
    assert.equal(columns.original(1, 2), 2);
    assert.equal(columns.original(2, 3), 3);
  });

  it('reads Java .properties: separators, comments, continuations, escapes', () => {
    const p = parseProperties(['# comment', '! also a comment', 'a=1', 'b : two words ', 'c three', 'd = first \\', '    second', 'e=tab\\tend\\u0041', '', 'key\\ with\\ blank = v'].join('\n'));
    assert.deepEqual(Object.fromEntries(p), { a: '1', b: 'two words ', c: 'three', d: 'first second', e: 'tab\tendA', 'key with blank': 'v' });
  });
});
