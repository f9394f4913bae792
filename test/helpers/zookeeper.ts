/**
 * A private ZooKeeper server for one test file: started on a free port in a
 * temporary data directory, which is removed when it stops. Reuse one per file
 * (startup takes a second or two).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { ZooKeeperServer } from '../../common/zookeeper-server.js';
import { freePort } from './ports.js';
import type { ZooKeeperClusterState } from '../../common/cluster-state/index.js';

export interface TestZooKeeper {
  server: ZooKeeperServer;
  /** `host:port`, for ZooKeeperOptions.servers. */
  connectString: string;
  stop(): Promise<void>;
}

export async function startTestZooKeeper(options: { tickTimeMs?: number } = {}): Promise<TestZooKeeper> {
  const dataDir = await mkdtemp(join(tmpdir(), 'hstorm-zk-'));
  try {
    const server = await ZooKeeperServer.start({
      port: await freePort(),
      host: '127.0.0.1',
      dataDir,
      // 250 ms ticks allow sessions as short as 500 ms, so expiry tests stay fast.
      tickTimeMs: options.tickTimeMs ?? 250,
      forceSync: false,
      startTimeoutMs: 60_000,
    });
    return {
      server,
      connectString: server.connectString,
      stop: async () => {
        await server.stop();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Ends a ZooKeeper session from outside its client, the way Curator's
 * KillSession does: a second connection takes over the session (same id and
 * password) and closes it. The connect request and the closeSession request go
 * out in one write: node-zookeeper-client's own client would wait for the
 * connect answer, and in that gap the original client reconnects at once and
 * takes the session back. The owner's next reconnect is told it has expired.
 */
export function killZooKeeperSession(connectString: string, sessionId: Buffer, password: Buffer, timeoutMs = 5000): Promise<boolean> {
  const [host = '127.0.0.1', port = '2181'] = connectString.split(',')[0]?.split(':') ?? [];
  const connectBody = Buffer.alloc(4 + 8 + 4 + 8 + 4 + password.length);
  let o = 0;
  o = connectBody.writeInt32BE(0, o); // protocol version
  o = connectBody.writeBigInt64BE(0n, o); // last zxid seen
  o = connectBody.writeInt32BE(30_000, o); // session timeout (ignored for an existing session)
  o += sessionId.copy(connectBody, o);
  o = connectBody.writeInt32BE(password.length, o);
  password.copy(connectBody, o);
  const closeBody = Buffer.alloc(8);
  closeBody.writeInt32BE(1, 0); // xid
  closeBody.writeInt32BE(-11, 4); // OpCode.closeSession
  const frame = (body: Buffer): Buffer => {
    const length = Buffer.alloc(4);
    length.writeInt32BE(body.length);
    return Buffer.concat([length, body]);
  };
  return new Promise((resolve, reject) => {
    const sock = createConnection({ host, port: Number(port) });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`ZooKeeper at ${connectString} did not close the session within ${timeoutMs} ms`));
    }, timeoutMs);
    sock.on('connect', () => sock.write(Buffer.concat([frame(connectBody), frame(closeBody)])));
    const received: Buffer[] = [];
    sock.on('data', (d: Buffer) => received.push(d));
    sock.on('error', () => undefined);
    // The server hangs up once the session is closed, and also when the owner's reconnect took the session back
    // first; only in the first case did it answer the closeSession (a reply header with xid 1 and no error).
    sock.on('close', () => {
      clearTimeout(timer);
      resolve(closeWasAnswered(Buffer.concat(received)));
    });
  });
}

/** Whether the frames a takeover connection received include the reply to its closeSession (xid 1, error 0). */
function closeWasAnswered(bytes: Buffer): boolean {
  let o = 0;
  let frame = 0;
  while (o + 4 <= bytes.length) {
    const len = bytes.readInt32BE(o);
    if (len < 0 || o + 4 + len > bytes.length) return false;
    // Frame 0 answers the connect request; a reply header is xid (4), zxid (8), error (4).
    if (frame > 0 && len >= 16 && bytes.readInt32BE(o + 4) === 1) return bytes.readInt32BE(o + 16) === 0;
    o += 4 + len;
    frame++;
  }
  return false;
}

/**
 * Forces `c`'s session to expire and waits until `c` has noticed. The takeover
 * races `c`'s own immediate reconnect, which can win and keep the session
 * alive (about half the time beside a CPU burner); the takeover then sees no
 * answer to its close and we try again at once. Waiting 5 s for an expiry
 * notice after a lost race, as this did before, made the contract's expiry
 * test take 5–10 s now and then, and once past its 40 s in a soak run.
 */
export async function expireSession(zk: TestZooKeeper, c: ZooKeeperClusterState): Promise<void> {
  let expired = false;
  const off = c.onSessionState((s) => {
    if (s === 'expired') expired = true;
  });
  const until = Date.now() + 60_000;
  let attempts = 0;
  try {
    while (!expired && Date.now() < until) {
      attempts++;
      const { id, password } = c.sessionCredentials();
      if (!(await killZooKeeperSession(zk.connectString, id, password))) {
        // Lost the race: the owner's reconnect took the session back before the close was read. Again, shortly.
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      // The close was answered: the session is gone; wait for the owner to be told (seconds on a loaded machine).
      const deadline = Date.now() + 15_000;
      while (!expired && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    off();
  }
  if (!expired) throw new Error(`could not expire the session in 60 s (${attempts} takeovers)`);
}
