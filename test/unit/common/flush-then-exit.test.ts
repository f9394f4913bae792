/**
 * A process that dies right after logging keeps its last lines
 * (common/logger.ts flushThenExit, used by worker/main.ts on every exit):
 * the destination is asynchronous, and exiting at once would drop them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures', 'log-then-exit.js');

describe('flushThenExit', () => {
  it('writes every line logged before the exit, the last one included, and exits with the code given', () => {
    const r = spawnSync(process.execPath, [FIXTURE, '20000'], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    assert.equal(r.status, 70);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 20001);
    assert.equal((JSON.parse(lines.at(-1)!) as { msg: string }).msg, 'last words');
  });
});
