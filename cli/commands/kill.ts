/**
 * `hstorm kill NAME [--wait S]`: spouts stop at once; workers are stopped
 * after the wait (default: the topology's topology.message.timeout.secs, as
 * in Storm). With --wait the command blocks until the topology is gone.
 */
import type { Command } from 'commander';
import { HstormError } from '../../common/errors.js';
import { isCode } from '../error-codes.js';
import { NimbusClient } from '../nimbus-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';
import { nonNegativeSecs } from './flag-values.js';

/** Beyond the wait, how long the topology may take to disappear before we give up. */
const REMOVAL_SLACK_MS = 30_000;

export function registerKill(program: Command): void {
  addConfigOptions(
    program
      .command('kill <name>')
      .description('kill a topology: deactivate its spouts, then stop its workers after the wait')
      .option('-w, --wait <secs>', 'seconds between deactivation and stopping the workers; blocks until they are gone')
      .option('--json', 'print JSON'),
  ).action(async (name: string, flags: ConfigFlags & { wait?: string; json?: boolean }) => {
    const wait = flags.wait === undefined ? undefined : nonNegativeSecs('--wait', flags.wait);
    const client = NimbusClient.fromConfig(clientConfig(flags).config);
    const res = await client.kill(name, wait);
    if (!flags.json) process.stderr.write(`killed topology ${res.name} (${res.id}); its workers stop after ${res.killWaitSecs ?? 0}s\n`);
    if (wait !== undefined) {
      const until = Date.now() + wait * 1000 + REMOVAL_SLACK_MS;
      for (;;) {
        try {
          await client.describe(res.id);
        } catch (err) {
          if (isCode(err, 'HSTORM_ERR_NIMBUS_TOPOLOGY_NOT_FOUND')) break;
          throw err;
        }
        if (Date.now() > until) throw new HstormError('HSTORM_ERR_CLI_KILL_TIMEOUT', `topology ${res.id} is still there ${wait}s + ${REMOVAL_SLACK_MS / 1000}s after the kill`);
        await new Promise((r) => setTimeout(r, 250));
      }
      if (!flags.json) process.stderr.write(`topology ${res.name} is gone\n`);
    }
    if (flags.json) process.stdout.write(`${JSON.stringify({ ...res, removed: wait !== undefined })}\n`);
  });
}
