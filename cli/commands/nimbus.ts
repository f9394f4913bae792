/** `hstorm nimbus`: the master daemon — ZooKeeper store, Nimbus, HTTP API on nimbus.http.port with the UI room's routes. */
import type { Command } from 'commander';
import { join } from 'node:path';
import { connectZooKeeper, zookeeperOptions } from '../../common/cluster-state/zookeeper-store.js';
import { ConfigError } from '../../common/errors.js';
import { createLogger } from '../../common/logger.js';
import { configWarnings, exposureWarnings } from '../../common/security/exposure.js';
import { nimbusSecret } from '../../common/security/secrets.js';
import { Nimbus, nimbusSettings, startHttpApi } from '../../nimbus/index.js';
import { operatorUi } from '../../ui/index.js';
import { flushLog, untilSignal, withinBound } from '../daemon-runtime.js';
import { addConfigOptions, loadClusterConfig, type ConfigFlags } from './config-options.js';

export function registerNimbus(program: Command): void {
  addConfigOptions(
    program
      .command('nimbus')
      .description('start the master daemon: stores topologies, schedules them, serves the HTTP API')
      .option('--bind <host>', 'address the HTTP API listens on (beyond 127.0.0.1 without nimbus.auth.secret, nimbus warns at start)', '0.0.0.0'),
  ).action(async (flags: ConfigFlags & { bind: string }) => {
    const config = loadClusterConfig(flags);
    const log = createLogger('nimbus');
    const settings = nimbusSettings(config);
    const secret = nimbusSecret(config);
    if (settings.curve && secret === null) {
      throw new ConfigError('hstorm.messaging.curve needs nimbus.auth.secret (or nimbus.auth.secret.file): supervisors fetch the CURVE keys from nimbus', 'hstorm.messaging.curve', true);
    }
    for (const line of exposureWarnings([{ what: 'nimbus HTTP API', host: flags.bind, protections: [{ name: 'nimbus.auth.secret', on: secret !== null }] }])) {
      log.warn(line);
    }
    for (const line of configWarnings(config)) log.warn(line);
    const port = settings.httpPort;
    const state = await connectZooKeeper(zookeeperOptions(config), log.child({ component: 'zookeeper' }));
    const nimbus = new Nimbus({
      state,
      config,
      log,
      blobDir: join(settings.localDir, 'blobs'),
      advertise: { host: settings.host, port },
    });
    let http: Awaited<ReturnType<typeof startHttpApi>> | null = null;
    try {
      http = await startHttpApi({
        nimbus,
        log,
        host: flags.bind,
        port,
        auth: secret === null ? null : { secret, reads: settings.authReads },
        allowedHosts: settings.allowedHosts,
        plugins: [operatorUi({ readModel: nimbus.readModel, control: nimbus, log })],
      });
      await nimbus.start();
      await untilSignal(log);
    } finally {
      // Bounded: whatever still runs after nimbus.shutdown.timeout.secs (a round waiting on a hung ZooKeeper) is abandoned.
      const stopped = await withinBound(settings.shutdownTimeoutMs, async () => {
        await http?.app.close().catch(() => undefined);
        await nimbus.stop();
        await state.close().catch(() => undefined);
      });
      if (stopped) log.info('nimbus stopped');
      else log.warn({ boundSecs: settings.shutdownTimeoutMs / 1000 }, 'nimbus did not stop within nimbus.shutdown.timeout.secs; exiting with work unfinished');
      await flushLog(log);
      if (!stopped) process.exit(1);
    }
  });
}
