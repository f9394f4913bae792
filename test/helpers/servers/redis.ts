/**
 * A private Redis server for one test file: Debian's `redis-server` on a free
 * port, bound to 127.0.0.1, with its own temporary directory (removed on
 * stop) and a config written here in full, so nothing from
 * /etc/redis/redis.conf applies. No persistence unless asked for: a test that
 * takes the server down and up again (`persistent: true`) gets an append-only
 * file fsynced every second and written out on a clean shutdown, as a
 * production Redis would keep a stream.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../ports.js';
import { restartableServer, ServerProcess, tcpAnswer, type TestServer } from './server-process.js';

/** `url` is `redis://host:port`; data survives takeDown only with `persistent: true`. */
export interface TestRedis extends TestServer {
  /** The server's own temporary directory (config, append-only file). */
  dir: string;
}

export interface TestRedisOptions {
  /** Keep data across takeDown/bringUp (append-only file); default false. */
  persistent?: boolean;
}

/** Where Debian's package puts the server; REDIS_SERVER overrides. */
function redisServerBinary(): string {
  return process.env.REDIS_SERVER ?? 'redis-server';
}

export async function startTestRedis(options: TestRedisOptions = {}): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'hstorm-redis-'));
  try {
    const host = '127.0.0.1';
    const port = await freePort();
    const config = join(dir, 'redis.conf');
    await writeFile(
      config,
      [
        '# written by the hstorm test harness',
        `bind ${host}`,
        `port ${port}`,
        `dir ${dir}`,
        'daemonize no',
        'supervised no',
        'protected-mode no',
        'logfile ""',
        'loglevel warning',
        'databases 16',
        // No RDB snapshots ever; the append-only file only when asked for.
        'save ""',
        `appendonly ${options.persistent ? 'yes' : 'no'}`,
        'appendfsync everysec',
        '',
      ].join('\n'),
    );
    const start = (): Promise<ServerProcess> =>
      ServerProcess.start({
        name: `redis-server on port ${port}`,
        command: redisServerBinary(),
        args: [config],
        cwd: dir,
        // PING answers -LOADING while the append-only file is read back: ready only at +PONG.
        ready: async () => (await tcpAnswer(host, port, 'PING\r\n')).startsWith('+PONG'),
      });
    return await restartableServer({ host, port, url: `redis://${host}:${port}`, dir }, start, { cleanup: () => rm(dir, { recursive: true, force: true }) });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
