/**
 * A private PostgreSQL server for one test file: Debian's `postgresql`
 * binaries (initdb, then postgres) on a free port, listening on 127.0.0.1 and
 * on a unix socket in its own temporary directory, with a data directory
 * there too (all removed on stop). PostgreSQL refuses to run as root, so under
 * root it runs as the package's `postgres` user (server-user.ts). One
 * superuser, `hstorm`, with trust authentication on the loopback address.
 * Commits stay synchronous (a committed row survives the server's kill -9,
 * which the connector tests rely on); only the fsync to disk is off, which
 * matters for a machine crash, not for a server restart.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../ports.js';
import { restartableServer, ServerProcess, type TestServer } from './server-process.js';
import { giveTo, serverUser } from './server-user.js';

/** `url` is `postgresql://user@host:port/database`; takeDown is a fast shutdown (SIGINT: sessions ended, committed data kept). */
export interface TestPostgres extends TestServer {
  user: string;
  /** The database every server starts with; tests create their own tables in it. */
  database: string;
  /** The directory holding the unix socket (`host` for a socket connection). */
  socketDir: string;
  dataDir: string;
}

const run = promisify(execFile);

/** The newest installed PostgreSQL's bin directory (Debian: /usr/lib/postgresql/<major>/bin); PG_BIN overrides. */
export function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => /^\d+$/.test(d)) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL under ${root}: install it with 'apt-get install postgresql' (or set PG_BIN)`);
  return join(root, newest, 'bin');
}

export async function startTestPostgres(): Promise<TestPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'hstorm-pg-'));
  try {
    const bin = postgresBinDir();
    const user = serverUser('postgres');
    const dataDir = join(dir, 'data');
    const socketDir = join(dir, 'sock');
    await mkdir(socketDir);
    await giveTo(dir, user);
    await run(
      join(bin, 'initdb'),
      ['-D', dataDir, '-U', 'hstorm', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync'],
      { uid: user?.uid, gid: user?.gid, cwd: dir },
    );
    const host = '127.0.0.1';
    const port = await freePort();
    const database = 'postgres';
    const start = (): Promise<ServerProcess> =>
      ServerProcess.start({
        name: `postgres on port ${port}`,
        command: join(bin, 'postgres'),
        args: [
          '-D',
          dataDir,
          '-p',
          String(port),
          '-c',
          `listen_addresses=${host}`,
          '-c',
          `unix_socket_directories=${socketDir}`,
          '-c',
          'fsync=off',
          '-c',
          'full_page_writes=off',
          '-c',
          'shared_buffers=32MB',
          '-c',
          'max_connections=60',
          '-c',
          'logging_collector=off',
          '-c',
          'log_min_messages=warning',
        ],
        uid: user?.uid,
        gid: user?.gid,
        cwd: dir,
        ready: async () => {
          const client = new pg.Client({ host, port, user: 'hstorm', database, connectionTimeoutMillis: 1000 });
          try {
            await client.connect();
            await client.query('SELECT 1');
            return true;
          } finally {
            await client.end().catch(() => undefined);
          }
        },
      });
    return await restartableServer(
      { host, port, user: 'hstorm', database, url: `postgresql://hstorm@${host}:${port}/${database}`, socketDir, dataDir },
      start,
      { cleanup: () => rm(dir, { recursive: true, force: true }), graceMs: 30_000, stopSignal: 'SIGINT' },
    );
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
