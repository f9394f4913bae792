import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultTopologyName, loadConfiguredTopology, resolveModulePath } from '../../../worker/load-topology.js';
import { packageRoot } from '../../../common/package-root.js';

describe('worker/load-topology module resolution', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-resolve-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a .ts module by its path, without the extension, and as a directory index', () => {
    mkdirSync(join(dir, 'mytopo'));
    writeFileSync(join(dir, 'mytopo', 'index.ts'), 'export default null;');
    writeFileSync(join(dir, 'wc.ts'), 'export default null;');
    assert.equal(resolveModulePath(join(dir, 'mytopo', 'index.ts'), packageRoot()), join(dir, 'mytopo', 'index.ts'));
    assert.equal(resolveModulePath(join(dir, 'mytopo'), packageRoot()), join(dir, 'mytopo', 'index.ts'));
    assert.equal(resolveModulePath(join(dir, 'wc'), packageRoot()), join(dir, 'wc.ts'));
  });

  it('lists only the paths it looked at when nothing is there', () => {
    assert.throws(
      () => resolveModulePath(join(dir, 'nope.ts'), packageRoot()),
      (err: Error) => err.message === `cannot find a topology module at "${join(dir, 'nope.ts')}" (tried ${join(dir, 'nope.ts')})`,
    );
    assert.throws(() => resolveModulePath(join(dir, 'zz'), packageRoot()), (err: Error) => err.message.includes(join(dir, 'zz', 'index.ts')) && !err.message.includes('…'));
  });

  it('refuses a file that exists with an extension no module has, naming the allowed ones', () => {
    writeFileSync(join(dir, 'topo.py'), '');
    assert.throws(() => resolveModulePath(join(dir, 'topo.py'), packageRoot()), /is not a topology module: allowed extensions \.js, \.mjs, \.ts/);
  });

  it("maps this package's own sources to their compiled twins", () => {
    assert.equal(resolveModulePath(join(packageRoot(), 'examples', 'word-count'), packageRoot()), join(packageRoot(), 'dist', 'examples', 'word-count', 'index.js'));
  });

  it('names a topology after its file, or its directory for an index file', () => {
    assert.equal(defaultTopologyName('/some/dir/mytopo/index.ts'), 'mytopo');
    assert.equal(defaultTopologyName('/some/dir/wc.mjs'), 'wc');
    assert.equal(defaultTopologyName('/x/dist/examples/word-count/index.js'), 'word-count');
    assert.equal(defaultTopologyName('/x/my topo.v2.ts'), 'my-topo-v2');
  });
});

describe('worker/load-topology loadConfiguredTopology', () => {
  const hybrid = () => resolveModulePath(join(packageRoot(), 'examples', 'hybrid-matmul'), packageRoot());

  it('checks -c topology.gpu.workers against the module\'s topology.workers, not the default 1 (issue 31)', async () => {
    const { config, topologyConfig } = await loadConfiguredTopology(hybrid(), { 'topology.gpu.workers': 2 });
    assert.equal(config['topology.workers'], 3, 'the module sets 3');
    assert.equal(config['topology.gpu.workers'], 2);
    assert.equal(topologyConfig['topology.gpu.workers'], 2);
  });

  it('still refuses more GPU workers than the module\'s workers, naming its count', async () => {
    await assert.rejects(loadConfiguredTopology(hybrid(), { 'topology.gpu.workers': 4 }), /topology\.gpu\.workers.*4; allowed: at most topology\.workers \(3\)/);
  });
});
