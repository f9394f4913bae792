/** `hstorm local <module>`: run a topology on this machine (the embedded default). */
import { Option, type Command } from 'commander';
import { CliUsageError } from '../../common/errors.js';
import { readConfigFile } from '../../common/config/index.js';
import { splitOverrides } from './client-config.js';
import { addConfigOptions } from './config-options.js';
import { runLocal } from '../local-run.js';
import { formatSummary, progressLine } from '../run-summary.js';
import { createLogger } from '../../common/logger.js';

interface LocalFlags {
  duration: string;
  json?: boolean;
  name?: string;
  conf: string[];
  config?: string;
  logLevel: string;
}

export function registerLocal(program: Command): void {
  addConfigOptions(program.command('local <module>'))
    .description('run a topology locally: embedded nimbus and supervisor, real worker processes over ZeroMQ')
    .option('-d, --duration <seconds>', 'how long to run before draining and stopping', '30')
    .option('-n, --name <name>', 'topology name (default: from the module path)')
    .addOption(
      new Option('--log-level <level>', 'log level of the embedded daemons (to stderr)')
        .choices(['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'])
        .default('silent'),
    )
    .option('--json', 'print the final summary as one JSON object on stdout')
    .action(async (module: string, flags: LocalFlags) => {
      const duration = Number(flags.duration);
      if (!Number.isFinite(duration) || duration <= 0) {
        throw new CliUsageError(`invalid --duration "${flags.duration}": allowed: a number of seconds > 0`);
      }
      const tty = process.stderr.isTTY;
      // -c takes both kinds of keys here: cluster keys (e.g. nimbus.scheduler) configure the embedded daemons.
      const { cluster, topology } = splitOverrides(flags.conf);
      const summary = await runLocal({
        module,
        name: flags.name,
        durationSec: duration,
        overrides: topology,
        clusterConfig: { ...readConfigFile(flags.config ?? 'hstorm.yaml', flags.config !== undefined), ...cluster },
        log: createLogger('local', { level: flags.logLevel as 'info', destination: 2 }),
        onProgress: (s, t) => {
          if (tty) process.stderr.write(`\r\x1b[2K${progressLine(s, t)}`);
          else if (!flags.json && Math.round(t) % 5 === 0) process.stderr.write(`${progressLine(s, t)}\n`);
        },
      });
      if (tty) process.stderr.write('\n');
      process.stdout.write(flags.json ? `${JSON.stringify(summary)}\n` : `${formatSummary(summary)}\n`);
    });
}
