/**
 * ShellBolt against a scripted subprocess (Node, so the test needs nothing
 * else): messages right behind the handshake's pid are not lost, and a
 * subprocess that stops answering heartbeats is killed at the timeout (an
 * injected clock), its pending tuple failed, and a new one started.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OutputCollector } from '../../../topology-sdk/components.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { ShellBolt } from '../../../topology-sdk/shell-bolt.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { tickTuple } from '../../../worker/executor/tick-source.js';
import { readEmitArgs } from '../../../topology-sdk/internal/emit-args.js';
import type { Tuple } from '../../../topology-sdk/tuple.js';
import { fakeContext } from '../../helpers/fake-context.js';
import { waitFor } from '../../helpers/wait-for.js';

// Answers the handshake, logs in the same write as its pid, then reads and never answers.
const SILENT_AFTER_HELLO = `
const rl = require('readline').createInterface({ input: process.stdin });
let hello = true;
rl.on('line', (line) => {
  if (hello && line === 'end') {
    hello = false;
    process.stdout.write(JSON.stringify({ pid: process.pid }) + '\\nend\\n' + JSON.stringify({ command: 'log', msg: 'right behind the pid', level: 3 }) + '\\nend\\n');
  }
});
`;

// storm.js's way, by hand: after the handshake, echo each tuple's comp, stream, task and values as an emit anchored to it, then ack it.
const ECHO = `
const rl = require('readline').createInterface({ input: process.stdin });
let lines = [];
let hello = true;
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\nend\\n');
rl.on('line', (line) => {
  if (line !== 'end') return void lines.push(line);
  const msg = JSON.parse(lines.join('\\n'));
  lines = [];
  if (hello) { hello = false; return send({ pid: process.pid }); }
  if (Array.isArray(msg)) return; // task ids of an emit
  if (msg.stream === '__heartbeat') return send({ command: 'sync' });
  send({ command: 'emit', anchors: [msg.id], tuple: [msg.comp, msg.stream, msg.task, msg.tuple] });
  send({ command: 'ack', id: msg.id });
});
`;

describe('ShellBolt', () => {
  let dir: string;
  let bolt: ShellBolt | null = null;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-shellbolt-'));
    writeFileSync(join(dir, 'silent.cjs'), SILENT_AFTER_HELLO);
  });
  afterEach(async () => {
    await bolt?.cleanup();
    bolt = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a message sent right behind the pid, and restarts a subprocess silent past the timeout, failing its pending tuple', async () => {
    let now = 0;
    let clockReads = 0;
    const clock = (): number => {
      clockReads++;
      return now;
    };
    bolt = new ShellBolt({ command: [process.execPath, 'silent.cjs'], cwd: dir, outputFields: ['x'], heartbeatMs: 10, now: clock });
    const ctx = fakeContext({ component: 'split', taskId: 3 });
    const failed: Tuple[] = [];
    const errors: string[] = [];
    const collector: OutputCollector = {
      emit: () => [],
      emitDirect: () => undefined,
      ack: () => assert.fail('nothing is acked'),
      fail: (t) => failed.push(t),
      resetTimeout: () => undefined,
      reportError: (err) => errors.push(String(err)),
    };
    await bolt.prepare({ 'topology.subprocess.timeout.secs': 5 }, ctx, collector);
    await waitFor('the log behind the pid', () => ctx.logged.some((l) => l.level === 'warn' && l.msg === 'right behind the pid'), 10_000, 10);

    const t = new RuntimeTuple(['a b'], new Fields(['sentence']), 'spout', 'default', 1, null);
    await bolt.execute(t);
    assert.equal(bolt.pendingCount, 1);
    // Heartbeats go unanswered, but within the timeout nothing happens.
    now = 4_999;
    // Each heartbeat tick reads the clock once while a tuple is pending: wait for a few checks at 4.999 s.
    const reads = clockReads;
    await waitFor('three timeout checks at 4.999 s', () => clockReads >= reads + 3, 10_000, 10);
    assert.equal(bolt.restarts, 0);
    now = 5_001;
    await waitFor('the subprocess declared hung and restarted', () => bolt!.restarts === 1 && failed.length === 1, 10_000, 10);
    assert.equal(failed[0], t);
    assert.equal(bolt.pendingCount, 0);
    assert.match(errors.join('\n'), /silent\.cjs` \(pid \d+\) sent nothing for 5 s \(topology\.subprocess\.timeout\.secs\): subprocess heartbeat timeout/);
    assert.ok(ctx.logged.some((l) => l.level === 'error' && /failed its 1 pending tuple\(s\), restarting it/.test(l.msg ?? '')));
    // The new subprocess is up and takes tuples again.
    await waitFor('a second launch', () => ctx.logged.filter((l) => l.msg === 'launched multilang subprocess').length === 2, 10_000, 10);
    await bolt.execute(t);
    assert.equal(bolt.pendingCount, 1);
  });

  it('hands tick tuples to the subprocess as Storm does (comp __system, stream __tick, task -1), and its ack of one is harmless', async () => {
    writeFileSync(join(dir, 'echo.cjs'), ECHO);
    bolt = new ShellBolt({ command: [process.execPath, 'echo.cjs'], cwd: dir, outputFields: ['comp', 'stream', 'task', 'values'] });
    const emitted: unknown[][] = [];
    const acked: Tuple[] = [];
    const collector = {
      emit: (a: unknown, b?: unknown, c?: unknown) => {
        emitted.push(readEmitArgs('bolt', 'echo', a, b, c).values);
        return [9];
      },
      emitDirect: () => undefined,
      resetTimeout: () => undefined,
      ack: (t: Tuple) => void acked.push(t),
      fail: () => assert.fail('nothing fails'),
      reportError: (err: unknown) => assert.fail(String(err)),
    } as OutputCollector;
    await bolt.prepare({ 'topology.subprocess.timeout.secs': 30 }, fakeContext({ component: 'echo', taskId: 4 }), collector);
    const tick = tickTuple(5);
    await bolt.execute(tick);
    await waitFor('the tick echoed and acked', () => acked.length === 1, 10_000, 10);
    assert.deepEqual(emitted, [['__system', '__tick', -1, [5]]]);
    assert.equal(acked[0], tick);
    assert.equal(bolt.pendingCount, 0);
  });

  it('fails to prepare, naming the command and directory, when the program cannot run', async () => {
    bolt = new ShellBolt({ command: ['./no-such-program'], cwd: dir });
    await assert.rejects(Promise.resolve(bolt.prepare({ 'topology.subprocess.timeout.secs': 5 }, fakeContext(), {} as OutputCollector)), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'HSTORM_ERR_MULTILANG_SUBPROCESS');
      assert.match(err.message, /`\.\/no-such-program` .* could not run \(spawn \.\/no-such-program ENOENT\) in /);
      return true;
    });
    bolt = null;
  });

  it('refuses a command that is not a list of strings', () => {
    assert.throws(() => new ShellBolt({ command: [] }), /non-empty array of strings/);
    assert.throws(() => new ShellBolt({ command: 'python3 bolt.py' as unknown as string[] }), /non-empty array of strings/);
  });
});
