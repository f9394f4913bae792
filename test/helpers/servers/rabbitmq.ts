/**
 * A private RabbitMQ broker for one test file: Debian's `rabbitmq-server` with
 * everything it would take from the machine made its own — node name, AMQP
 * port, Erlang distribution port, its own epmd on its own port (Erlang's name
 * server is shared machine-wide by default, and the first node to start one
 * leaves it running), database (RABBITMQ_MNESIA_BASE), logs, config file,
 * plugins file, env file and HOME (the Erlang cookie) — all in a temporary
 * directory removed on stop. Under root it runs as the package's `rabbitmq`
 * user (server-user.ts). Readiness is an AMQP handshake: the broker opens its
 * listener only once it has booted.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../ports.js';
import { restartableServer, ServerProcess, tcpAnswer, type TestServer } from './server-process.js';
import { giveTo, serverUser } from './server-user.js';

/** `url` is `amqp://guest:guest@host:port`; durable queues and persistent messages survive takeDown. */
export interface TestRabbitMq extends TestServer {
  dir: string;
}

/** RABBITMQ_SCRIPTS overrides where the broker's scripts are (Debian: /usr/lib/rabbitmq/bin). */
function rabbitScripts(): string {
  return process.env.RABBITMQ_SCRIPTS ?? '/usr/lib/rabbitmq/bin';
}

/** An AMQP 0-9-1 client's protocol header; a ready broker answers with a Connection.Start method frame (type 1). */
const AMQP_HEADER = Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]);

export async function startTestRabbitMq(): Promise<TestRabbitMq> {
  const dir = await mkdtemp(join(tmpdir(), 'hstorm-rabbitmq-'));
  let epmd: ServerProcess | undefined;
  try {
    const host = '127.0.0.1';
    const [port, distPort, epmdPort] = [await freePort(), await freePort(), await freePort()];
    const user = serverUser('rabbitmq');
    for (const sub of ['mnesia', 'log', 'home']) await mkdir(join(dir, sub));
    const configFile = join(dir, 'rabbitmq.conf');
    await writeFile(
      configFile,
      [
        '# written by the hstorm test harness',
        `listeners.tcp.default = ${host}:${port}`,
        // The free-disk alarm blocks publishers; a shared test machine's disk is not what a test is about.
        'disk_free_limit.absolute = 1MB',
        'log.console = true',
        'log.console.level = warning',
        'log.file = false',
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, 'enabled_plugins'), '[].\n');
    await writeFile(join(dir, 'rabbitmq-env.conf'), '');
    await giveTo(dir, user);
    const erlangEnv = { ...process.env, HOME: join(dir, 'home'), ERL_EPMD_PORT: String(epmdPort) };

    epmd = await ServerProcess.start({
      name: `epmd on port ${epmdPort}`,
      command: 'epmd',
      args: ['-port', String(epmdPort), '-address', host],
      env: erlangEnv,
      uid: user?.uid,
      gid: user?.gid,
      // NAMES_REQ: two length bytes, then 'n'; epmd answers with its port and the names registered.
      ready: async () => (await tcpAnswer(host, epmdPort, Buffer.from([0, 1, 110]))).length > 0,
    });
    const env: NodeJS.ProcessEnv = {
      ...erlangEnv,
      RABBITMQ_NODENAME: `hstorm${port}@localhost`,
      RABBITMQ_NODE_IP_ADDRESS: host,
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: join(dir, 'log'),
      RABBITMQ_LOGS: '-',
      RABBITMQ_CONFIG_FILE: configFile,
      RABBITMQ_ADVANCED_CONFIG_FILE: join(dir, 'advanced.config'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
      RABBITMQ_CONF_ENV_FILE: join(dir, 'rabbitmq-env.conf'),
      RABBITMQ_PID_FILE: join(dir, 'rabbitmq.pid'),
      // Idle schedulers sleep instead of spinning: the broker shares two cores with the topology under test.
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '+sbwt none +sbwtdcpu none +sbwtdio none',
    };
    const start = (): Promise<ServerProcess> =>
      ServerProcess.start({
        name: `rabbitmq-server on port ${port}`,
        command: join(rabbitScripts(), 'rabbitmq-server'),
        args: [],
        env,
        cwd: dir,
        uid: user?.uid,
        gid: user?.gid,
        startTimeoutMs: 120_000,
        ready: async () => (await tcpAnswer(host, port, AMQP_HEADER)).charCodeAt(0) === 1,
      });
    const epmdServer = epmd;
    return await restartableServer({ host, port, url: `amqp://guest:guest@${host}:${port}`, dir }, start, {
      graceMs: 30_000,
      cleanup: async () => {
        await epmdServer.stop();
        await rm(dir, { recursive: true, force: true });
      },
    });
  } catch (err) {
    await epmd?.stop();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
