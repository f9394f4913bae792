/**
 * `hstorm logs` without a cluster: which workers a component names, the
 * errors for an unknown component or no workers, whole lines across chunks,
 * the component filter on lines, and the prefix every line gets.
 */
import assert from 'node:assert/strict';
import type { SupervisorSummary, TopologyDetail } from '../../../nimbus/index.js';
import { formatLogLine, jsonLogLine, lineWanted, logTargets, WorkerLogCursor } from '../../../cli/topology-logs.js';

const detail = {
  id: 'wc-1-100',
  name: 'wc',
  status: 'active',
  components: { sentences: {}, split: {}, count: {}, __acker: {} },
  workers: [
    { supervisor: 's1', host: '10.0.0.1', port: 6700, executors: [{ component: 'sentences', tasks: [1] }, { component: 'split', tasks: [2] }] },
    { supervisor: 's2', host: '10.0.0.2', port: 6701, executors: [{ component: 'count', tasks: [3, 4] }] },
  ],
} as unknown as TopologyDetail;
const supervisors = [
  { id: 's1', logServer: { host: '10.0.0.1', port: 8000 } },
  { id: 's2' },
] as unknown as SupervisorSummary[];

describe('hstorm logs: targets and lines', () => {
  it("reads every worker, or those running the component, with each supervisor's log server", () => {
    const all = logTargets(detail, supervisors);
    assert.deepEqual(
      all.map((t) => [t.host, t.port, t.server]),
      [
        ['10.0.0.1', 6700, { supervisor: 's1', host: '10.0.0.1', port: 8000 }],
        ['10.0.0.2', 6701, null],
      ],
    );
    assert.deepEqual(logTargets(detail, supervisors, 'count').map((t) => t.port), [6701]);
    assert.deepEqual(logTargets(detail, supervisors, 'split').map((t) => t.port), [6700]);
  });

  it('names the known components for an unknown one, and says when no worker runs it', () => {
    assert.throws(() => logTargets(detail, supervisors, 'counter'), (err: { code: string; message: string }) => {
      assert.equal(err.code, 'HSTORM_ERR_CLI_LOGS_UNKNOWN_COMPONENT');
      assert.match(err.message, /no component "counter"; its components: __acker, count, sentences, split/);
      return true;
    });
    assert.throws(() => logTargets(detail, supervisors, '__acker'), { code: 'HSTORM_ERR_CLI_LOGS_NO_WORKERS' });
  });

  it('keeps lines whole across chunks and notices a replaced file', () => {
    const c = new WorkerLogCursor(logTargets(detail, supervisors)[0]!);
    assert.deepEqual(c.next(10), { lines: 10 });
    assert.deepEqual(c.next(null), { offset: 0 });
    assert.deepEqual(c.take({ topologyId: 'x', port: 1, size: 9, start: 0, end: 9, text: 'one\ntw' }).lines, ['one']);
    assert.deepEqual(c.next(10), { offset: 9 });
    assert.deepEqual(c.take({ topologyId: 'x', port: 1, size: 14, start: 9, end: 14, text: 'o\nthr' }), { lines: ['two'], restarted: false });
    assert.equal(c.flush(), 'thr');
    assert.deepEqual(c.take({ topologyId: 'x', port: 1, size: 4, start: 0, end: 4, text: 'new\n' }), { lines: ['new'], restarted: true });
  });

  it("filters other components' lines and keeps the worker's own", () => {
    const line = (o: object): string => JSON.stringify({ level: 30, time: 0, msg: 'm', ...o });
    assert.equal(lineWanted(line({ component: 'split', task: 2 }), 'split'), true);
    assert.equal(lineWanted(line({ component: 'sentences', task: 1 }), 'split'), false);
    assert.equal(lineWanted(line({}), 'split'), true);
    assert.equal(lineWanted('Error: crashed', 'split'), true);
    assert.equal(lineWanted(line({ component: 'sentences' }), undefined), true);
  });

  it('prefixes host:port and component[task], keeps extra fields and the error', () => {
    const t = logTargets(detail, supervisors)[0]!;
    const raw = JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 2, 3, 4, 5), pid: 9, component: 'split', task: 2, msg: 'odd, "word"', word: 'x', err: { message: 'bad', stack: 'Error: bad\n    at f (a.ts:1:2)' } });
    assert.equal(formatLogLine(t, raw), '10.0.0.1:6700 split[2] 2026-01-02T03:04:05.000Z WARN odd, "word" {"word":"x"}: Error: bad\n    at f (a.ts:1:2)');
    assert.equal(formatLogLine(t, 'Segmentation fault'), '10.0.0.1:6700 Segmentation fault');
    assert.deepEqual(jsonLogLine(t, raw), { supervisor: 's1', host: '10.0.0.1', port: 6700, component: 'split', task: 2, line: raw });
  });
});
