/**
 * What `hstorm submit` uploads builds, in a worker, the very topology the CLI built from the module — the check every
 * worker makes (checkSameShape). A registered class travels under its name, so the bundle must keep class names:
 * esbuild turns a class that refers to itself (`new Rankings()` in its own method) into `var Rankings = class
 * _Rankings`, and without keepNames the workers' registration said "_Rankings" where the CLI's said "Rankings".
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { bundleTopology } from '../../../cli/topology-bundle.js';
import { compileFlux } from '../../../flux/index.js';
import { buildConfig } from '../../../common/config/index.js';
import { packageRoot } from '../../../common/package-root.js';
import { checkSameShape, loadTopology } from '../../../worker/index.js';

const EXAMPLE = join(packageRoot(), 'examples/rolling-top-words');

describe('topology bundle (hstorm submit)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-bundle-test-'));
    // A worker resolves the bundle's external `hstorm` import to its own SDK; here, this package.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(packageRoot(), join(dir, 'node_modules', 'hstorm'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function loadBundle(entry: Parameters<typeof bundleTopology>[0], name: string) {
    const file = join(dir, `${name}.mjs`);
    writeFileSync(file, gunzipSync((await bundleTopology(entry)).gz));
    return loadTopology(file, buildConfig([], { allowUserKeys: true }));
  }

  for (const [form, path] of [
    ['TypeScript module', join(EXAMPLE, 'index.ts')],
    ['module compiled to dist/', join(packageRoot(), 'dist/examples/rolling-top-words/index.js')],
  ] as const) {
    it(`a ${form} whose registered classes refer to themselves: the bundle registers them under the same names`, async () => {
      const direct = await loadTopology(path, buildConfig([], { allowUserKeys: true }));
      const bundled = await loadBundle(path, form.replace(/\W+/g, '-'));
      assert.deepEqual(direct.def.serializations, ['Rankings', 'RankableObjectWithFields']);
      assert.deepEqual(bundled.def.serializations, direct.def.serializations);
      assert.deepEqual(
        bundled.topology.serializations.map((r) => r.Class.name),
        ['Rankings', 'RankableObjectWithFields'],
      );
      checkSameShape(direct.def, bundled.def, path);
    });
  }

  it("a Flux file's topology.kryo.register: the bundle registers the classes under their own names", async () => {
    const compiled = compileFlux(join(EXAMPLE, 'topology.yaml'));
    const bundled = await loadBundle(compiled.entry, 'flux');
    assert.deepEqual(bundled.def.serializations, ['Rankings', 'RankableObjectWithFields']);
  });
});
