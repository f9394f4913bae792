/**
 * The supervisor's worker log server: it serves the last N lines or the bytes
 * from an offset of `<logDir>/<topology>/worker-<port>.log`, nothing outside
 * the log directory (traversal, encoded traversal, a planted symlink), and
 * with a secret set refuses a request without it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { silentLogger } from '../../../common/logger.js';
import { buildLogServer } from '../../../supervisor/log-server.js';
import { WorkerLogFiles } from '../../../supervisor/worker-log-files.js';

const SECRET = 'log-server-test-secret-0123456789';

describe('supervisor worker log server', () => {
  let dir: string;
  let logDir: string;
  let app: FastifyInstance;
  const lines = Array.from({ length: 50 }, (_, i) => `line ${i} ${'é'.repeat(i % 3)}`);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hstorm-logsrv-'));
    logDir = join(dir, 'logs');
    mkdirSync(join(logDir, 'wc-1-100'), { recursive: true });
    writeFileSync(join(logDir, 'wc-1-100', 'worker-6700.log'), `${lines.join('\n')}\n`);
    writeFileSync(join(dir, 'secret.txt'), 'not a log\n');
    app = buildLogServer({ logDir, secret: null, log: silentLogger() });
  });
  afterEach(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = async (url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await app.inject({ method: 'GET', url, headers });
    return { status: res.statusCode, body: res.json() };
  };

  it('serves the last N lines, and the bytes from an offset', async () => {
    const tail = await get('/api/v1/logs/wc-1-100/6700?lines=3');
    assert.equal(tail.status, 200);
    assert.equal(tail.body.text, `${lines.slice(-3).join('\n')}\n`);
    assert.equal(tail.body.end, tail.body.size);
    const all = await get('/api/v1/logs/wc-1-100/6700?offset=0');
    assert.equal(all.body.text, `${lines.join('\n')}\n`);
    const from = await get(`/api/v1/logs/wc-1-100/6700?offset=${Buffer.byteLength(`${lines.slice(0, 10).join('\n')}\n`)}`);
    assert.equal(from.body.text, `${lines.slice(10).join('\n')}\n`);
    const more = await get(`/api/v1/logs/wc-1-100/6700?offset=${String(all.body.size)}`);
    assert.equal(more.body.text, '');
  });

  it('refuses traversal, bad ids and ports, and a symlink out of the log directory', async () => {
    symlinkSync(join(dir, 'secret.txt'), join(logDir, 'wc-1-100', 'worker-6701.log'));
    symlinkSync(dir, join(logDir, 'evil'));
    for (const url of [
      '/api/v1/logs/..%2F..%2Fsecret.txt/6700',
      '/api/v1/logs/../6700',
      '/api/v1/logs/.hidden/6700',
      '/api/v1/logs/wc-1-100/6700x',
      '/api/v1/logs/wc-1-100/70000',
      '/api/v1/logs/wc-1-100/6701',
      '/api/v1/logs/wc-1-100/6700?lines=-1',
      '/api/v1/logs/wc-1-100/6700?offset=abc',
    ]) {
      const r = await app.inject({ method: 'GET', url });
      assert.ok([400, 404].includes(r.statusCode), `${url} answered ${r.statusCode}`);
      assert.ok(!r.body.includes('not a log'), `${url} leaked a file outside the log directory`);
      if (r.statusCode === 400) assert.equal((r.json() as { error: { code: string } }).error.code, 'HSTORM_ERR_SUPERVISOR_LOG_PATH', url);
    }
    const sym = await get('/api/v1/logs/wc-1-100/6701');
    assert.equal(sym.status, 400);
    assert.match(String((sym.body.error as { message: string }).message), /outside the worker log directory/);
    const missing = await get('/api/v1/logs/wc-1-100/6799');
    assert.equal(missing.status, 404);
    assert.equal((missing.body.error as { code: string }).code, 'HSTORM_ERR_SUPERVISOR_LOG_NOT_FOUND');
  });

  it('with a secret, refuses requests without it or with a wrong one', async () => {
    await app.close();
    app = buildLogServer({ logDir, secret: SECRET, log: silentLogger() });
    for (const headers of [{}, { authorization: 'Bearer wrong-secret-0123456789abc' }] as Record<string, string>[]) {
      const r = await get('/api/v1/logs/wc-1-100/6700?lines=1', headers);
      assert.equal(r.status, 401);
      assert.equal((r.body.error as { code: string }).code, 'HSTORM_ERR_SUPERVISOR_LOG_UNAUTHENTICATED');
      assert.equal(r.body.text, undefined);
    }
    const ok = await get('/api/v1/logs/wc-1-100/6700?lines=1', { authorization: `Bearer ${SECRET}` });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.text, `${lines.at(-1)}\n`);
  });
});

describe('WorkerLogFiles', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hstorm-logfiles-'));
    mkdirSync(join(dir, 't-1-1'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('pages a file on whole lines and restarts at 0 when the offset is past the end', async () => {
    writeFileSync(join(dir, 't-1-1', 'worker-1.log'), 'aaaa\nbbbb\ncccc\n');
    const files = new WorkerLogFiles(dir);
    const first = await files.fromOffset('t-1-1', 1, 0, 7);
    assert.deepEqual([first.text, first.start, first.end, first.size], ['aaaa\n', 0, 5, 15]);
    const second = await files.fromOffset('t-1-1', 1, first.end, 7);
    assert.equal(second.text, 'bbbb\n');
    const past = await files.fromOffset('t-1-1', 1, 100, 7);
    assert.deepEqual([past.start, past.text], [0, 'aaaa\n']);
  });

  it('tails a last line without its newline, and never shows a line cut by the byte cap', async () => {
    writeFileSync(join(dir, 't-1-1', 'worker-2.log'), 'one\ntwo\nthree\npart');
    const files = new WorkerLogFiles(dir);
    assert.equal((await files.tail('t-1-1', 2, 2)).text, 'three\npart');
    assert.equal((await files.tail('t-1-1', 2, 100)).text, 'one\ntwo\nthree\npart');
    // The last 12 bytes are "o\nthree\npart": "o" is the end of a line and is left out.
    const capped = await files.tail('t-1-1', 2, 100, 12);
    assert.equal(capped.text, 'three\npart');
    assert.equal(capped.end, capped.size);
    writeFileSync(join(dir, 't-1-1', 'worker-3.log'), '');
    assert.equal((await files.tail('t-1-1', 3, 5)).text, '');
  });
});
