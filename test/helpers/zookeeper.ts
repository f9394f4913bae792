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
export function killZooKeeperSession(connectString: string, sessionId: Buffer, password: Buffer, timeoutMs = 5000): Promise<void> {
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
    sock.on('data', () => undefined);
    sock.on('error', () => undefined);
    // The server hangs up once the session is closed.
    sock.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Forces `c`'s session to expire and waits until `c` has noticed. The takeover
 * races `c`'s own immediate reconnect, which can win and keep the session
 * alive; then we simply try again.
 */
export async function expireSession(zk: TestZooKeeper, c: ZooKeeperClusterState): Promise<void> {
  let expired = false;
  const off = c.onSessionState((s) => {
    if (s === 'expired') expired = true;
  });
  try {
    for (let attempt = 0; attempt < 10 && !expired; attempt++) {
      const { id, password } = c.sessionCredentials();
      await killZooKeeperSession(zk.connectString, id, password);
      // Generous: on a loaded machine the expiry notice can take seconds; a second takeover too early would only cost time.
      const deadline = Date.now() + 5000;
      while (!expired && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    off();
  }
  if (!expired) throw new Error('could not expire the session in 10 attempts');
}
