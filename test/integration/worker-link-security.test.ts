/**
 * Worker links, over real ZeroMQ sockets: a slot listens on the configured
 * address only (127.0.0.1 unless told otherwise, as the kernel's listening
 * table shows), and with CURVE keys a forged batch — from a plain socket, or
 * from a CURVE client with a key pair of its own — never reaches the receiving
 * worker, while a peer holding the topology's pair gets through. The same
 * forgery without CURVE does get through, which is what the refusals are
 * measured against. `hstorm dev-zookeeper` listens on 127.0.0.1 by default.
 * And `hstorm local` runs a topology with CURVE on.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as zmq from 'zeromq';
import { silentLogger } from '../../common/logger.js';
import type { CurveKeys } from '../../common/security/curve-keys.js';
import { encodeBatch, type WireBatch, ZmqTransport } from '../../worker/index.js';
import { configuredSlotBindHost, resolveSlotBindHost } from '../../common/slot-bind-host.js';
import { refusedCurvePeers, z85Decode } from '../../worker/transport/curve.js';
import { join } from 'node:path';
import { runLocal, PACKAGE_ROOT } from '../../cli/local-run.js';
import { freePort } from '../helpers/ports.js';
import { waitFor } from '../helpers/wait-for.js';

const log = silentLogger();
const FORGED_ID = 77777777;
const GOOD_ID = 4242;

/**
 * Addresses the kernel lists as listening on `port`, from /proc/net/tcp and
 * tcp6: IPv4 (and IPv4-mapped IPv6, as Java binds) as dotted quads, `::` for
 * every IPv6 interface, other IPv6 addresses as hex.
 */
function listeningAddresses(port: number): string[] {
  const out: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // no IPv6 on this kernel
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4 || f[3] !== '0A') continue; // 0A: LISTEN
      const [addrHex, portHex] = f[1]!.split(':');
      if (parseInt(portHex!, 16) !== port) continue;
      // The kernel prints each 32-bit word in host (little-endian) order.
      const bytes = Buffer.concat((addrHex!.match(/.{8}/g) ?? []).map((w) => Buffer.from(w, 'hex').reverse()));
      const v4 = bytes.length === 4 ? bytes : bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff ? bytes.subarray(12) : null;
      if (v4) out.push([...v4].join('.'));
      else out.push(bytes.every((b) => b === 0) ? '::' : bytes.toString('hex'));
    }
  }
  return out;
}

/** A receiving worker: every tuple id it sees (value 0 of each tuple). */
function receiver(port: number, opts: { bindHost?: string; curve?: CurveKeys | null } = {}): { transport: ZmqTransport; seen: unknown[] } {
  const seen: unknown[] = [];
  const transport = new ZmqTransport(
    { port, batchSize: 1, flushIntervalMs: 1, highWaterMark: 16, maxFrameBytes: 1 << 20, ...opts },
    {
      onBatch: (b: WireBatch) => {
        for (const t of b.tuples) seen.push(t[3][0]);
      },
      onGarbage: () => undefined,
      onDrain: () => undefined,
    },
    log,
  );
  return { transport, seen };
}

function sender(port: number, curve: CurveKeys | null): ZmqTransport {
  return new ZmqTransport({ port, batchSize: 1, flushIntervalMs: 1, highWaterMark: 16, maxFrameBytes: 1 << 20, curve }, { onBatch: () => undefined, onGarbage: () => undefined, onDrain: () => undefined }, log);
}

/** A socket that is no worker: sends one well-formed batch carrying FORGED_ID and records its handshake events. */
function forger(port: number, options: Partial<zmq.SocketOptions<zmq.Push>> = {}): { push: zmq.Push; events: string[] } {
  const push = new zmq.Push({ linger: 0, ...options });
  const events: string[] = [];
  for (const type of ['handshake', 'handshake:error:protocol', 'handshake:error:auth', 'handshake:error:other'] as const) {
    push.events.on(type, () => events.push(type));
  }
  push.connect(`tcp://127.0.0.1:${port}`);
  void push.send(encodeBatch(1, [[1, 0, 'default', [FORGED_ID], null]])).catch(() => undefined);
  return { push, events };
}

describe('worker links: bind address and CURVE', function () {
  this.timeout(30_000);
  const closers: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  it('binds the slot to 127.0.0.1 by default, to the configured host when given, and to every interface only when asked', async () => {
    assert.equal(configuredSlotBindHost({}), '127.0.0.1');
    assert.equal(configuredSlotBindHost({ 'supervisor.host': '10.1.2.3' }), '10.1.2.3');
    assert.equal(configuredSlotBindHost({ 'supervisor.host': '10.1.2.3', 'supervisor.slots.bind.host': '0.0.0.0' }), '0.0.0.0');
    assert.equal(await resolveSlotBindHost('localhost'), '127.0.0.1');
    assert.equal(await resolveSlotBindHost('0.0.0.0'), '*');

    const quiet = await freePort();
    const a = receiver(quiet);
    closers.push(() => a.transport.close());
    await a.transport.bind();
    assert.deepEqual(listeningAddresses(quiet), ['127.0.0.1']);

    const open = await freePort();
    const b = receiver(open, { bindHost: await resolveSlotBindHost(configuredSlotBindHost({ 'supervisor.slots.bind.host': '0.0.0.0' })) });
    closers.push(() => b.transport.close());
    await b.transport.bind();
    assert.deepEqual(listeningAddresses(open), ['0.0.0.0']);
  });

  it('hstorm dev-zookeeper listens on 127.0.0.1 unless given --host', async () => {
    const port = await freePort();
    const dataDir = await mkdtemp(join(tmpdir(), 'hstorm-devzk-'));
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'hstorm.js'), 'dev-zookeeper', '--port', String(port), '--data-dir', dataDir, '--quiet'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    closers.push(async () => {
      const gone = new Promise((r) => child.once('exit', r));
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM');
      await gone;
      await rm(dataDir, { recursive: true, force: true });
    });
    await waitFor('ZooKeeper up', () => err.includes('ZooKeeper is up'), 60_000, 100);
    assert.match(err, new RegExp(`ZooKeeper is up on 127\\.0\\.0\\.1:${port}`));
    assert.deepEqual(listeningAddresses(port), ['127.0.0.1'], 'not on every interface (java would list :: or 0.0.0.0)');
  });

  it('without CURVE, a forged batch from a plain socket reaches the worker (the door CURVE closes)', async () => {
    const port = await freePort();
    const r = receiver(port);
    closers.push(() => r.transport.close());
    await r.transport.bind();
    const f = forger(port);
    closers.push(() => f.push.close());
    await waitFor('the forged id at the receiver', () => r.seen.includes(FORGED_ID), 10_000, 20);
  });

  it('with CURVE, the topology\'s peers get through and forged batches do not: a plain socket fails the handshake, another key pair is refused by ZAP', async () => {
    const keys: CurveKeys = zmq.curveKeyPair();
    assert.equal(z85Decode(keys.publicKey).length, 32);
    const port = await freePort();
    const r = receiver(port, { curve: keys });
    closers.push(() => r.transport.close());
    await r.transport.bind();

    const plain = forger(port);
    closers.push(() => plain.push.close());
    await waitFor('the plain socket to fail its handshake', () => plain.events.includes('handshake:error:protocol'), 10_000, 20);
    assert.ok(!plain.events.includes('handshake'), `events: ${plain.events.join(', ')}`);

    const refusedBefore = refusedCurvePeers();
    const stranger = zmq.curveKeyPair();
    const other = forger(port, { curveServerKey: keys.publicKey, curvePublicKey: stranger.publicKey, curveSecretKey: stranger.secretKey });
    closers.push(() => other.push.close());
    await waitFor('ZAP to refuse the stranger\'s key', () => other.events.includes('handshake:error:auth') && refusedCurvePeers() > refusedBefore, 10_000, 20);

    // A worker of the same topology: its batch arrives, after both forgeries had their chance.
    const s = sender(await freePort(), keys);
    closers.push(() => s.close());
    s.setPeer('r', { host: '127.0.0.1', port });
    s.send('r', [1, 0, 'default', [GOOD_ID], null]);
    await waitFor('the peer\'s tuple at the receiver', () => r.seen.includes(GOOD_ID), 10_000, 20);
    assert.deepEqual(r.seen, [GOOD_ID], 'only the topology\'s own peer got a tuple through');
    assert.equal(r.transport.receivedBatches, 1);
  });

  it('hstorm local with hstorm.messaging.curve: keys from the in-process nimbus, word count across 2 workers loses nothing', async () => {
    const perSpout = 150;
    const summary = await runLocal({
      module: join(PACKAGE_ROOT, 'examples/word-count'),
      durationSec: 3,
      clusterConfig: { 'hstorm.messaging.curve': true },
      overrides: { 'topology.workers': 2, 'wordcount.sentences': perSpout, 'wordcount.parallelism.spout': 2 },
      drainSec: 15,
    });
    assert.equal(summary.workers, 2);
    assert.equal(summary.acked, 2 * perSpout);
    assert.equal(summary.failed, 0);
  });
});
