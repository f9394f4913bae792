import assert from 'node:assert/strict';
import { lastErrorIn } from '../../../supervisor/worker-log-error.js';

const line = (o: Record<string, unknown>): string => JSON.stringify({ time: 1, pid: 1, ...o });

describe('supervisor/worker-log-error', () => {
  it('takes the newest error or fatal line, with its error and first frames', () => {
    const log = [
      line({ level: 50, msg: 'older error', err: { message: 'old', stack: 'Error: old' } }),
      line({ level: 60, msg: 'worker failed to start', err: { message: 'boom', stack: 'Error: boom\n    at open (file:///t/index.ts:3:9)\n    at a\n    at b' } }),
      line({ level: 30, msg: 'worker stopped' }),
      '',
    ].join('\n');
    assert.equal(lastErrorIn(log), 'worker failed to start: Error: boom\n    at open (file:///t/index.ts:3:9)\n    at a');
  });

  it("takes what Node printed when the worker died before its logger could write (an uncaught error's block)", () => {
    const log = [
      line({ level: 30, msg: 'starting' }),
      'file:///t/index.mjs:2',
      "throw new Error('nope');",
      '^',
      '',
      'Error: nope',
      '    at file:///t/index.mjs:2:7',
      '    at ModuleJob.run (node:internal/modules/esm/module_job:1:1)',
      '    at x',
      '    at y',
    ].join('\n');
    assert.equal(lastErrorIn(log), 'Error: nope\n    at file:///t/index.mjs:2:7\n    at ModuleJob.run (node:internal/modules/esm/module_job:1:1)\n    at x');
  });

  it('keeps the last lines of output that names no error', () => {
    assert.equal(lastErrorIn(['a', 'b', 'c', 'd', 'e', 'f'].join('\n')), 'c\nd\ne\nf');
  });

  it('returns null for a log without errors', () => {
    assert.equal(lastErrorIn(line({ level: 40, msg: 'a warning' })), null);
    assert.equal(lastErrorIn(''), null);
  });
});
