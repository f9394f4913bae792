import assert from 'node:assert/strict';
import { pino } from 'pino';
import { LogLevelControl } from '../../../worker/log-level-control.js';

describe('worker/log-level-control', () => {
  it("switches the worker's logger and its children to the topology's level, and back when reset or expired", () => {
    let now = 1000;
    const root = pino({ level: 'info' }, { write: () => undefined });
    const worker = root.child({ worker: 'w' });
    const executor = worker.child({ component: 'split', task: 3 });
    const c = new LogLevelControl(worker, () => now);
    c.apply({ level: 'debug', until: null });
    assert.equal(executor.isLevelEnabled('debug'), true, 'an executor logger follows the worker logger');
    c.apply(undefined);
    assert.equal(executor.isLevelEnabled('debug'), false);
    c.apply({ level: 'error', until: 5000 });
    assert.equal(executor.isLevelEnabled('warn'), false);
    now = 6000;
    c.apply({ level: 'error', until: 5000 });
    assert.equal(c.level, 'info', 'an expired setting is the worker’s own level');
  });
});
