/** `hstorm local <module|flux.yaml>`: run a topology on this machine (the embedded default). */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { CliUsageError } from '../../common/errors.js';
import { readConfigFile, validateEntries } from '../../common/config/index.js';
import { splitOverrides } from './client-config.js';
import { addConfigOptions } from './config-options.js';
import { runLocal } from '../local-run.js';
import type { RunSummary } from '../run-summary.js';
import { formatSummary, progressLine } from '../run-summary-format.js';
import { createLogger } from '../../common/logger.js';
import { WorkerLogConsole } from '../worker-log-console.js';
import { openTopologySource } from '../topology-source.js';
import { loadConfiguredTopology } from '../../worker/index.js';
import { dryRun, formatDryRun } from '../dry-run-format.js';
import { fluxDryRun, formatFluxDryRun } from '../flux-dry-run.js';
import { isFluxFile } from '../../flux/index.js';
import { addFluxOptions, fluxOptions, printFluxWarnings, type FluxFlags } from './flux-options.js';
import { formatTypeCheck } from '../type-check.js';

interface LocalFlags extends FluxFlags {
  dryRun?: boolean;
  duration: string;
  typeCheck: boolean;
  keepLogs?: string;
  json?: boolean;
  name?: string;
  conf: string[];
  config?: string;
  logLevel: string;
}

export function registerLocal(program: Command): void {
  addFluxOptions(addConfigOptions(program.command('local <module>')))
    .description('run a topology (a module, or a Flux .yaml file) locally: embedded nimbus and supervisor, real worker processes over ZeroMQ')
    .option('-d, --duration <seconds>', 'how long to run before draining and stopping', '30')
    .option('-n, --name <name>', 'topology name (default: from the module path)')
    .addOption(
      new Option('--log-level <level>', 'log level of the embedded daemons (to stderr)')
        .choices(['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'])
        .default('silent'),
    )
    .option('--json', 'print the final summary as one JSON object on stdout')
    .option('--dry-run', 'build and validate the topology and print it (components, streams, groupings, config); run nothing')
    .option('--keep-logs <dir>', "copy the worker logs into <dir> when the run ends (the run's own temp directory is always removed)")
    .option('--no-type-check', "don't type-check a TypeScript module (by default its type errors are printed as warnings, the run goes on)")
    .action(async (module: string, flags: LocalFlags) => {
      const duration = Number(flags.duration);
      if (!Number.isFinite(duration) || duration <= 0) {
        throw new CliUsageError(`invalid --duration "${flags.duration}": allowed: a number of seconds > 0`);
      }
      const tty = process.stderr.isTTY;
      // Worker warnings and errors go to stderr as they happen (rate-limited per message), above the progress line.
      const workerLogs = new WorkerLogConsole({ write: (text) => process.stderr.write(tty ? `\r\x1b[2K${text}` : text) });
      // -c takes both kinds of keys here: cluster keys (e.g. nimbus.scheduler) configure the embedded daemons.
      const { cluster, topology } = splitOverrides(flags.conf);
      if (flags.dryRun && isFluxFile(module)) {
        // A Flux file's dry run loads none of its modules: it runs nothing the file names.
        const r = await fluxDryRun(module, fluxOptions(flags), topology, flags.name);
        for (const w of r.warnings) process.stderr.write(`hstorm: warning: ${w}\n`);
        process.stdout.write(flags.json ? `${JSON.stringify(r)}\n` : `${formatFluxDryRun(r)}\n`);
        return;
      }
      const source = await openTopologySource(module, fluxOptions(flags));
      printFluxWarnings(source);
      if (flags.dryRun) {
        const { def, topologyConfig } = await loadConfiguredTopology(source.modulePath, topology);
        const r = dryRun(flags.name ?? source.defaultName, module, def, topologyConfig);
        process.stdout.write(flags.json ? `${JSON.stringify(r)}\n` : `${formatDryRun(r)}\n`);
        return;
      }
      const configFile = flags.config ?? 'hstorm.yaml';
      const fileConfig = validateEntries(readConfigFile(configFile, flags.config !== undefined), { allowUserKeys: false, where: configFile });
      let summary: RunSummary | null = null;
      // The first Ctrl-C ends the run as its duration would (drain, shut down, summary, temp dir removed); a second one
      // exits at once (the temp dirs still go, common/temp-dirs.ts).
      const stop = new AbortController();
      const onSigint = (): void => {
        if (stop.signal.aborted) process.exit(130);
        process.stderr.write(`${tty ? '\r\x1b[2K' : ''}stopping (Ctrl-C again to exit at once)\n`);
        stop.abort();
      };
      process.on('SIGINT', onSigint);
      try {
        summary = await runLocal({
          module,
          source,
          name: flags.name,
          durationSec: duration,
          overrides: topology,
          clusterConfig: { ...fileConfig, ...cluster },
          log: createLogger('local', { level: flags.logLevel as 'info', destination: 2 }),
          onWorkerLog: (line) => workerLogs.show(line),
          ...(flags.keepLogs && { keepLogsIn: resolve(flags.keepLogs) }),
          signal: stop.signal,
          ...(flags.typeCheck && {
            onTypeCheck: (r) => {
              const lines = formatTypeCheck(r);
              if (lines.length > 0) process.stderr.write(`${tty ? '\r\x1b[2K' : ''}${lines.map((l) => `${r.checked ? 'warning' : 'note'}: ${l}`).join('\n')}\n`);
            },
          }),
          onProgress: (s, t) => {
            if (tty) process.stderr.write(`\r\x1b[2K${progressLine(s, t)}`);
            else if (!flags.json && Math.round(t) % 5 === 0) process.stderr.write(`${progressLine(s, t)}\n`);
          },
        });
      } finally {
        process.off('SIGINT', onSigint);
        if (tty) process.stderr.write('\n');
        workerLogs.flush();
        // The text summary says it too; with --json or a run that threw, this line is the only place.
        if (flags.keepLogs && (flags.json || !summary)) process.stderr.write(`worker logs kept in ${resolve(flags.keepLogs)}\n`);
      }
      process.stdout.write(flags.json ? `${JSON.stringify(summary)}\n` : `${formatSummary(summary)}\n`);
    });
}
