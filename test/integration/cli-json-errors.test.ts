/**
 * `--json` errors: the real `hstorm` binary, run as a script would, prints a
 * failure as one JSON line `{ code, message }` on stdout; Storm key names in
 * -c are refused naming -c, not the config file.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../common/package-root.js';

function hstorm(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [join(packageRoot(), 'bin', 'hstorm.js'), ...args], { cwd, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('cli --json errors and Storm key names', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-cli-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints { code, message } on stdout for an error with --json, and prose on stderr without', () => {
    const r = hstorm(['list', '-c', 'nimbus.seeds=a', '--json'], dir);
    assert.equal(r.status, 2);
    const out = JSON.parse(r.stdout) as { code: string; message: string };
    assert.equal(out.code, 'HSTORM_ERR_CONFIG_INVALID');
    assert.match(out.message, /"nimbus\.seeds" in the -c options: .*did you mean "nimbus\.host"\?/);
    const plain = hstorm(['list', '-c', 'nimbus.seeds=a'], dir);
    assert.equal(plain.stdout, '');
    assert.match(plain.stderr, /^hstorm: unknown config key "nimbus\.seeds" in the -c options/);
  });

  it('names -c, not hstorm.yaml, for a bad -c key even when an hstorm.yaml is there', () => {
    writeFileSync(join(dir, 'hstorm.yaml'), 'nimbus.http.port: 7000\n');
    const r = hstorm(['list', '-c', 'nimbus.sheduler=even', '--json'], dir);
    const out = JSON.parse(r.stdout) as { message: string };
    assert.match(out.message, /"nimbus\.sheduler" in the -c options; did you mean "nimbus\.scheduler"/);
    assert.doesNotMatch(out.message, /hstorm\.yaml/);
  });

  it('refuses a Storm key passed to local with -c instead of silently taking it as a topology key', () => {
    const r = hstorm(['local', join(packageRoot(), 'examples', 'word-count'), '-d', '1', '-c', 'storm.zookeeper.servers=zk1', '--json'], dir);
    const out = JSON.parse(r.stdout) as { code: string; message: string };
    assert.equal(out.code, 'HSTORM_ERR_CONFIG_INVALID');
    assert.match(out.message, /did you mean "hstorm\.zookeeper\.servers"\?/);
  });

  it('reports a usage error as HSTORM_ERR_CLI_USAGE', () => {
    const r = hstorm(['rebalance', '--json'], dir);
    assert.deepEqual(JSON.parse(r.stdout), { code: 'HSTORM_ERR_CLI_USAGE', message: "missing required argument 'name'" });
  });
});
