/**
 * `hstorm local` type-checks a TypeScript module (cli/type-check.ts): tsc's errors with file:line, none for a
 * correct module, and a note instead of a check when no TypeScript can be found.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatTypeCheck, typeCheckModule } from '../../../cli/type-check.js';

const GOOD = `import { Bolt, TopologyBuilder, type OutputCollector, type Tuple, type Conf, type TopologyContext, type OutputFieldsDeclarer } from 'hstorm';
export class Odd extends Bolt {
  private c!: OutputCollector;
  override prepare(_conf: Conf, _ctx: TopologyContext, c: OutputCollector): void { this.c = c; }
  execute(t: Tuple): void { this.c.emit('odd', t, [t.getString(0), 1, 2]); this.c.ack(t); }
  override declareOutputFields(d: OutputFieldsDeclarer): void { d.declareStream('odd', ['w', 'a', 'b']); }
}
export default () => new TopologyBuilder().createTopology();
`;

// A bolt's collector takes no message id: tsc says TS2769 (no overload matches), on line 5.
const BAD = GOOD.replace("this.c.emit('odd', t, [t.getString(0), 1, 2]);", 'this.c.emit([t.getString(0)], 42);');

describe('cli/type-check: hstorm local type-checks a TypeScript module', function () {
  // A compiler program over the SDK's and Node's types takes a few seconds on a loaded 2-core machine.
  this.timeout(120_000);
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hstorm-typecheck-test-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reports tsc's errors with file:line:column and code", async () => {
    const file = join(dir, 'bad.ts');
    await writeFile(file, BAD);
    const r = await typeCheckModule(file);
    assert.equal(r.checked, true, r.note ?? '');
    assert.equal(r.diagnostics.length, 1, JSON.stringify(r.diagnostics));
    const d = r.diagnostics[0]!;
    assert.equal(d.line, 5);
    assert.equal(d.code, 2769);
    assert.match(d.file ?? '', /bad\.ts$/);
    const lines = formatTypeCheck(r);
    assert.match(lines[1]!, /bad\.ts:5:\d+ - error TS2769: No overload matches this call/);
  });

  it('reports nothing for a module tsc accepts (Storm\'s emit(streamId, anchor, values) included)', async () => {
    const file = join(dir, 'good.ts');
    await writeFile(file, GOOD);
    const r = await typeCheckModule(file);
    assert.equal(r.checked, true, r.note ?? '');
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(formatTypeCheck(r), []);
  });

  it('skips with a note when no TypeScript is found beside the module or the package', async () => {
    const file = join(dir, 'good2.ts');
    await writeFile(file, GOOD);
    const r = await typeCheckModule(file, dir);
    assert.equal(r.checked, false);
    assert.match(r.note ?? '', /no TypeScript found .*npm i -D typescript/);
  });
});
