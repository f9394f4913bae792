/** Every subcommand, in the order `hstorm --help` lists them. */
import type { Command } from 'commander';
import { registerLocal } from './local.js';

export function registerCommands(program: Command): void {
  registerLocal(program);
}
