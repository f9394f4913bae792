/**
 * What a Flux file may reach by a className (docs/flux.md, "What a Flux file
 * can do"): Node's built-in modules are refused unless the command allows
 * each by name (the issue's `node:child_process#default` with `factory:
 * execSync`, bare names too); and no factory, property or config method
 * reaches past a class to what every function has (`factory: constructor`
 * is `Function`, then `configMethods: [call]` runs it).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFlux } from '../../../flux/index.js';
import { buildFlux, thrown } from './flux-helpers.js';

const SPOUT = 'org.apache.storm.testing.TestWordSpout';

describe('flux: what a className may reach', () => {
  let dir: string;
  let marker: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-flux-code-'));
    marker = join(dir, 'MARKER');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (text: string): string => {
    writeFileSync(join(dir, 'f.yaml'), text);
    return join(dir, 'f.yaml');
  };
  const component = (className: string, rest = '') => write(`components:\n  - id: "c"\n    className: "${className}"\n${rest}spouts: [{ id: s, className: "${SPOUT}" }]\n`);
  // The spout itself, so that building the topology makes it (a component nothing refers to is never made).
  const spout = (rest: string) => write(`spouts:\n  - id: "s"\n    className: "${SPOUT}"\n${rest}`);

  it("refuses Node's built-in modules as classNames, node: or bare, naming the option that allows one", async () => {
    const attack = component('node:child_process#default', `    factory: "execSync"\n    factoryArgs: ["touch ${marker}"]\n`);
    const err = await thrown(() => buildFlux(attack));
    assert.equal(err.code, 'HSTORM_ERR_FLUX_CLASS');
    assert.match(err.message, /f\.yaml:3:16: components\[0\]\.className: "node:child_process#default": node:child_process is one of Node\.js's built-in modules, which a Flux file may not name/);
    assert.match(err.message, /--flux-allow-builtin node:child_process/);
    assert.equal(existsSync(marker), false, 'the command ran');
    for (const name of ['child_process#execSync', 'fs#writeFileSync', 'node:fs/promises#default', 'vm#Script', 'worker_threads#Worker', 'module#createRequire', 'process#default']) {
      const e = await thrown(() => compileFlux(component(name)));
      assert.equal(e.code, 'HSTORM_ERR_FLUX_CLASS', name);
      assert.match(e.message, /built-in modules, which a Flux file may not name/, name);
    }
  });

  it('takes a built-in module the command allows by name, and only that one', async () => {
    const file = component('node:events#EventEmitter');
    assert.equal(compileFlux(file, { allowBuiltinModules: ['node:events'] }).modules[0], 'node:events');
    assert.equal(compileFlux(component('events#EventEmitter'), { allowBuiltinModules: ['node:events'] }).modules[0], 'events');
    assert.equal((await thrown(() => compileFlux(component('node:fs#default'), { allowBuiltinModules: ['node:events'] }))).code, 'HSTORM_ERR_FLUX_CLASS');
  });

  it('refuses constructor, __proto__ and prototype as a factory, property or config method', async () => {
    const cases = [
      [`    factory: "constructor"\n    factoryArgs: ["return 1"]\n`, /components\[0\]\.factory: "constructor" is not a method or field a Flux file may use/],
      [`    properties: [{ name: "__proto__", value: {} }]\n`, /components\[0\]\.properties\[0\]\.name: "__proto__"/],
      [`    configMethods: [{ name: "prototype" }]\n`, /components\[0\]\.configMethods\[0\]\.name: "prototype"/],
    ] as const;
    for (const [rest, says] of cases) {
      const err = await thrown(() => compileFlux(component(SPOUT, rest)));
      assert.equal(err.code, 'HSTORM_ERR_FLUX_INVALID');
      assert.match(err.message, says);
    }
  });

  it("finds no factory or config method in what every function has (call, apply, bind): Function's gadgets stay out of reach", async () => {
    const viaFactory = spout('    factory: "call"\n');
    const a = await thrown(() => buildFlux(viaFactory));
    assert.equal(a.code, 'HSTORM_ERR_FLUX_CLASS');
    assert.match(a.message, /factory "call" is not a static method of org\.apache\.storm\.testing\.TestWordSpout/);
    const viaMethod = spout('    configMethods: [{ name: "toString" }, { name: "__defineGetter__", args: ["x", 1] }]\n');
    const b = await thrown(() => buildFlux(viaMethod));
    assert.match(b.message, /config method "toString" is not a method of org\.apache\.storm\.testing\.TestWordSpout/);
    const viaProperty = spout('    properties: [{ name: "hasOwnProperty", value: 1 }]\n');
    assert.match((await thrown(() => buildFlux(viaProperty))).message, /property "hasOwnProperty": \S+ has neither a field "hasOwnProperty" nor a method setHasOwnProperty/);
  });
});
