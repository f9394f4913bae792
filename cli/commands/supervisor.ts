/** `hstorm supervisor`: the node daemon — registers this node's slots and GPUs and runs the workers assigned to it. */
import type { Command } from 'commander';
import { connectZooKeeper, zookeeperOptions } from '../../common/cluster-state/zookeeper-store.js';
import { createLogger } from '../../common/logger.js';
import { configWarnings, exposureWarnings } from '../../common/security/exposure.js';
import { configuredSlotBindHost } from '../../common/slot-bind-host.js';
import { Supervisor } from '../../supervisor/index.js';
import { flushLog, untilSignal } from '../daemon-runtime.js';
import { addConfigOptions, loadClusterConfig, type ConfigFlags } from './config-options.js';

export function registerSupervisor(program: Command): void {
  addConfigOptions(
    program.command('supervisor').description('start a node daemon: offers this machine\'s worker slots and GPUs, runs assigned workers'),
  ).action(async (flags: ConfigFlags) => {
    const config = loadClusterConfig(flags);
    const log = createLogger('supervisor');
    const slots = { what: 'worker slots', host: configuredSlotBindHost(config), protections: [{ name: 'hstorm.messaging.curve', on: config['hstorm.messaging.curve'] === true }] };
    const secretSet = config['nimbus.auth.secret'] !== null || config['nimbus.auth.secret.file'] !== null;
    const logServer = { what: 'worker log server (hstorm logs)', host: configuredSlotBindHost(config), protections: [{ name: 'nimbus.auth.secret', on: secretSet }] };
    for (const line of exposureWarnings(config['supervisor.logviewer.port'] === null ? [slots] : [slots, logServer])) log.warn(line);
    for (const line of configWarnings(config)) log.warn(line);
    const state = await connectZooKeeper(zookeeperOptions(config), log.child({ component: 'zookeeper' }));
    const sup = new Supervisor({ state, config, log });
    try {
      await sup.start();
      await untilSignal(log);
    } finally {
      await sup.stop();
      await state.close().catch(() => undefined);
      await flushLog(log);
    }
  });
}
