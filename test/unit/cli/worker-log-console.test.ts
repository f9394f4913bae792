import assert from 'node:assert/strict';
import { WorkerLogConsole } from '../../../cli/worker-log-console.js';
import { parseWorkerLogLine } from '../../../cli/worker-log-tail.js';

const pinoLine = (o: Record<string, unknown>): string => JSON.stringify({ time: 1, pid: 1, name: 'worker', ...o });

describe('cli/worker-log-tail parseWorkerLogLine', () => {
  it('reads a pino warning with its component, task and error stack', () => {
    const raw = pinoLine({ level: 40, component: 'split', task: 3, msg: 'execute threw; failing the tuple', err: { type: 'TypeError', message: 'x is not a function', stack: 'TypeError: x is not a function\n    at Split.execute (file:///t/index.ts:10:5)\n    at a\n    at b\n    at c' } });
    const l = parseWorkerLogLine(raw, 'topo-1', 6700);
    assert.ok(l);
    assert.equal(l.level, 40);
    assert.equal(l.component, 'split');
    assert.equal(l.task, 3);
    assert.equal(l.port, 6700);
    assert.equal(l.err, 'TypeError: x is not a function\n    at Split.execute (file:///t/index.ts:10:5)\n    at a\n    at b');
  });

  it("takes Node's own output (not JSON) as an error line and skips blank lines", () => {
    assert.equal(parseWorkerLogLine('   ', 't', 1), null);
    const l = parseWorkerLogLine('Error: Cannot find module', 't', 1);
    assert.equal(l?.level, 50);
    assert.equal(l?.msg, 'Error: Cannot find module');
  });

  it("takes a warning a process prints to stderr (Node's, Dawn's) as a warning, not an error", () => {
    for (const raw of [
      'Warning: DawnExperimentalSubgroupLimits is deprecated, use AdapterPropertiesSubgroups instead',
      '(node:4242) Warning: Setting the NODE_TLS_REJECT_UNAUTHORIZED environment variable to 0 is insecure',
      '(node:4242) [DEP0040] DeprecationWarning: The `punycode` module is deprecated.',
      '(node:4242) ExperimentalWarning: WASI is an experimental feature',
    ]) {
      assert.equal(parseWorkerLogLine(raw, 't', 1)?.level, 40, raw);
    }
    for (const raw of ['TypeError: x is not a function', '    at Bolt.execute (file:///t.js:3:9)', 'FATAL ERROR: Reached heap limit', 'Segmentation fault (core dumped)']) {
      assert.equal(parseWorkerLogLine(raw, 't', 1)?.level, 50, raw);
    }
  });
});

describe('cli/worker-log-console', () => {
  it('prints a flood of one error a few times, then how many were suppressed', () => {
    let now = 0;
    const out: string[] = [];
    const c = new WorkerLogConsole({ write: (t) => out.push(t), perWindow: 2, windowMs: 10_000, now: () => now });
    const line = { level: 40, port: 6700, topologyId: 't', component: 'bad', task: 2, msg: 'execute threw', err: 'TypeError: boom\n    at Bad.execute (x.ts:1:1)', time: 0 };
    for (let i = 0; i < 50; i++) c.show(line);
    c.show({ ...line, msg: 'something else', err: null });
    assert.equal(out.length, 3);
    assert.match(out[0]!, /^\[worker :6700\] WARN bad\[2\]: execute threw: TypeError: boom\n {4}at Bad\.execute \(x\.ts:1:1\)\n$/);
    assert.equal(c.suppressed, 48);
    now = 10_000;
    c.show(line);
    assert.match(out[3]!, /48 more like "WARN bad\[2\]: execute threw: TypeError: boom" suppressed/);
    c.show(line);
    c.show(line);
    c.flush();
    assert.match(out.at(-1)!, /1 more like .* suppressed/);
  });
});
