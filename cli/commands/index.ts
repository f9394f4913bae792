/** Every subcommand, in the order `hstorm --help` lists them. */
import type { Command } from 'commander';
import { registerLocal } from './local.js';
import { registerSubmit } from './submit.js';
import { registerList } from './list.js';
import { registerDescribe } from './describe.js';
import { registerKill } from './kill.js';
import { registerActivate } from './activate.js';
import { registerDeactivate } from './deactivate.js';
import { registerRebalance } from './rebalance.js';
import { registerSetLogLevel } from './set-log-level.js';
import { registerLogs } from './logs.js';
import { registerNimbus } from './nimbus.js';
import { registerSupervisor } from './supervisor.js';
import { registerDevZookeeper } from './dev-zookeeper.js';
import { registerSchedule } from './schedule.js';

export function registerCommands(program: Command): void {
  registerLocal(program);
  registerSubmit(program);
  registerList(program);
  registerDescribe(program);
  registerKill(program);
  registerActivate(program);
  registerDeactivate(program);
  registerRebalance(program);
  registerSetLogLevel(program);
  registerLogs(program);
  registerNimbus(program);
  registerSupervisor(program);
  registerDevZookeeper(program);
  registerSchedule(program);
}
