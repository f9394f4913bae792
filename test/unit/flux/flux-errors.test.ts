/**
 * Flux files that are wrong on purpose (test/fixtures/flux/bad/, one mistake
 * each) get the documented error: its code (docs/errors.md), the file, line
 * and column, the key, what was expected, and a "did you mean" for a misspelt
 * name or id.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { buildFlux, FIXTURES, thrown } from './flux-helpers.js';

interface Case {
  file: string;
  code: string;
  /** `line:column` where the message points. */
  at: string;
  /** What the message must say (the key, what was expected, did you mean). */
  says: RegExp[];
}

const CASES: Case[] = [
  // yaml's own refusal (maxAliasCount), said with the alias it stopped at instead of a bare ReferenceError's stack.
  { file: 'alias-bomb.yaml', code: 'HSTORM_ERR_FLUX_SYNTAX', at: '7:10', says: [/this alias would expand the document past 100 alias expansions \(anchors referring to anchors: a YAML alias bomb, "billion laughs"\)/] },
  {
    file: 'unknown-key.yaml',
    code: 'HSTORM_ERR_FLUX_INVALID',
    at: '8:5',
    says: [/unknown key "paralelism" in bolts\[0\] \(id "split"\); did you mean "parallelism"\?/, /allowed: id, className, .*parallelism/],
  },
  {
    file: 'unknown-component.yaml',
    code: 'HSTORM_ERR_FLUX_REFERENCE',
    at: '14:11',
    says: [/streams\[1\]\.from: "spilt": no spout or bolt has this id; did you mean "split"\? declared spouts and bolts: "sentences", "split", "count"/],
  },
  { file: 'grouping-args.yaml', code: 'HSTORM_ERR_FLUX_INVALID', at: '12:7', says: [/streams\[0\]\.grouping: grouping FIELDS needs args, the fields to group by/] },
  {
    file: 'grouping-type.yaml',
    code: 'HSTORM_ERR_FLUX_INVALID',
    at: '12:13',
    says: [/streams\[0\]\.grouping\.type: "twoChoice" is not allowed; expected one of SHUFFLE, FIELDS, .*; did you mean "TWO_CHOICE"\?/],
  },
  {
    file: 'include-cycle-a.yaml',
    code: 'HSTORM_ERR_FLUX_INCLUDE',
    at: '2:11',
    says: [/include-cycle-b\.yaml:2:11: includes\[0\]\.file: "include-cycle-a\.yaml" is already being included: a cycle of includes \(\S*include-cycle-a\.yaml → \S*include-cycle-b\.yaml → \S*include-cycle-a\.yaml\)/],
  },
  { file: 'unset-variable.yaml', code: 'HSTORM_ERR_FLUX_VARIABLE', at: '8:18', says: [/\$\{count\.parallelism\} is not set: no --filter file was given/] },
  {
    file: 'java-class.yaml',
    code: 'HSTORM_ERR_FLUX_CLASS',
    at: '7:16',
    says: [/bolts\[0\]\.className: "org\.apache\.storm\.starter\.bolt\.WordCountBolt" is a Java class hstorm does not know/, /"\.\/components\.js#SplitBolt"/, /org\.apache\.storm\.flux\.wrappers\.bolts\.LogInfoBolt/],
  },
  {
    file: 'window-unit.yaml',
    code: 'HSTORM_ERR_FLUX_CLASS',
    at: '4:16',
    says: [/components\[0\]\.className: .*BaseWindowedBolt\$Duration\(5, FORTNIGHTS\): the time unit must be one of MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS/],
  },
  {
    file: 'unknown-ref.yaml',
    code: 'HSTORM_ERR_FLUX_REFERENCE',
    at: '10:31',
    says: [/spouts\[0\]\.constructorArgs\[0\]\.reflist\[1\]: ref "greting": no component has this id; did you mean "greeting"\? declared components: "greeting"/],
  },
  { file: 'ref-cycle.yaml', code: 'HSTORM_ERR_FLUX_REFERENCE', at: '4:16', says: [/components\[0\]: component "a" refers to itself through a → b → a/] },
  {
    file: 'config-key.yaml',
    code: 'HSTORM_ERR_FLUX_INVALID',
    at: '3:3',
    says: [/config\.topology\.wokers: unknown config key "topology\.wokers" in the topology config; did you mean "topology\.workers"\?/],
  },
  { file: 'not-yaml.yaml', code: 'HSTORM_ERR_FLUX_SYNTAX', at: '4:1', says: [/not valid YAML: All mapping items must start at the same column/] },
  // Found by the runtime, when the topology is built (the CLI builds it before anything runs): the same position.
  {
    file: 'missing-export.yaml',
    code: 'HSTORM_ERR_FLUX_CLASS',
    at: '7:16',
    says: [/bolts\[0\]\.className: "\.\.\/components\.js#CountBolt": the module has no export "CountBolt"; it exports "EchoBolt", "FirstTaskGrouping", "Greeting", "GreetingSerializer", "Salutations", "WordSpout", "default", "notAClass"/],
  },
  {
    file: 'custom-grouping.yaml',
    code: 'HSTORM_ERR_FLUX_CLASS',
    at: '14:20',
    says: [/streams\[0\]\.grouping\.customClass\.className: \.\.\/components\.js#Greeting is not a CustomStreamGrouping: it needs prepare\(context, stream, targetTasks\) and chooseTasks\(taskId, values\)/],
  },
  {
    file: 'kryo-entry.yaml',
    code: 'HSTORM_ERR_FLUX_INVALID',
    at: '5:7',
    says: [/config\.topology\.kryo\.register\[1\]: expected a className or one \{ className: serializerClassName \} pair; config\.topology\.kryo\.register is a list of classNames/],
  },
  {
    file: 'kryo-serializer.yaml',
    code: 'HSTORM_ERR_FLUX_CLASS',
    at: '4:7',
    says: [/\.\.\/components\.js#Salutations is not a serializer of \.\.\/components\.js#Greeting: it needs write\(value\) and read\(data\)/],
  },
  {
    file: 'kryo-not-class.yaml',
    code: 'HSTORM_ERR_FLUX_CLASS',
    at: '4:7',
    says: [/\.\.\/components\.js#notAClass is not a class \(it is function\): topology\.kryo\.register lists the classes whose instances travel between workers/],
  },
];

describe('flux: errors in a Flux file', () => {
  for (const c of CASES) {
    it(`${c.file}: ${c.code} at ${c.at}`, async () => {
      const err = await thrown(() => buildFlux(join(FIXTURES, 'bad', c.file)));
      assert.equal(err.code, c.code, err.message);
      const file = c.file === 'include-cycle-a.yaml' ? 'include-cycle-b.yaml' : c.file;
      assert.match(err.message, new RegExp(`^\\S*bad/${file.replace('.', '\\.')}:${c.at}: `), 'the message starts with file:line:column');
      assert.equal(`${err.at?.line}:${err.at?.column}`, c.at);
      for (const re of c.says) assert.match(err.message, re);
    });
  }

  it('points at the column of the file as written when a variable filled the line', async () => {
    const err = await thrown(() => buildFlux(join(FIXTURES, 'bad', 'unset-variable.yaml'), { filter: join(FIXTURES, 'bad', 'two.properties') }));
    assert.equal(err.code, 'HSTORM_ERR_FLUX_INVALID');
    // `    parallelism: ${count.parallelism}` filled with "two": the value starts where `${` is, and is shown as written.
    assert.match(err.message, /unset-variable\.yaml:8:18: bolts\[0\]\.parallelism \(id "count"\): expected a whole number ≥ 1, got \$\{count\.parallelism\}$/);
  });

  it('says which key of the --filter file was probably meant', async () => {
    const err = await thrown(() => buildFlux(join(FIXTURES, 'bad', 'unset-variable.yaml'), { filter: join(FIXTURES, 'bad', 'misspelt.properties') }));
    assert.equal(err.code, 'HSTORM_ERR_FLUX_VARIABLE');
    assert.match(err.message, /unset-variable\.yaml:8:18: \$\{count\.parallelism\} is not set: \S*misspelt\.properties has no "count\.parallelism"; did you mean "count\.paralelism"\?/);
  });
});
