/**
 * `hstorm logs <topology> [component] [--follow] [--lines N]`: the topology's
 * worker logs, read through each supervisor's log server (Storm's logviewer
 * without the web page). The workers come from the assignment nimbus
 * reports; with a component, only the workers running it, and only its own
 * lines and the workers' untagged ones. A supervisor that does not answer is
 * named and skipped; the exit status is then 2 (after printing the others).
 */
import type { Command } from 'commander';
import { CliUsageError, type HstormError } from '../../common/errors.js';
import { MAX_TAIL_LINES } from '../../supervisor/log-server.js';
import { nimbusSecret } from '../../common/security/secrets.js';
import { NimbusClient } from '../nimbus-client.js';
import { TopologyLogReader } from '../topology-log-reader.js';
import { formatLogLine, jsonLogLine, logTargets, type LogTarget } from '../topology-logs.js';
import { WorkerLogClient } from '../worker-log-client.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';
import { positiveInt } from './flag-values.js';

interface LogsFlags extends ConfigFlags {
  follow?: boolean;
  lines?: string;
  raw?: boolean;
  json?: boolean;
}

export function registerLogs(program: Command): void {
  addConfigOptions(
    program
      .command('logs <topology> [component]')
      .description("print a topology's worker logs, read through the supervisors (Storm's logviewer); with a component, only the workers running it and its lines")
      .option('-f, --follow', 'keep printing new lines until Ctrl-C')
      .option('-n, --lines <n>', 'start with the last N lines of each worker log (default: the whole log)')
      .option('--raw', "print each line as the worker wrote it (pino JSON), prefixed with host:port")
      .option('--json', 'one JSON object per line: { supervisor, host, port, component, task, line }; a skipped worker as { code, message, … }'),
  ).action(async (name: string, component: string | undefined, flags: LogsFlags) => {
    const tailLines = flags.lines === undefined ? null : positiveInt('--lines', flags.lines);
    if (tailLines !== null && tailLines > MAX_TAIL_LINES) throw new CliUsageError(`invalid --lines "${flags.lines}"; allowed: a whole number from 1 to ${MAX_TAIL_LINES}`);
    const { config } = clientConfig(flags);
    const nimbus = NimbusClient.fromConfig(config);
    const targets = async (): Promise<LogTarget[]> => {
      const [detail, supervisors] = await Promise.all([nimbus.describe(name), nimbus.supervisors()]);
      return logTargets(detail, supervisors, component);
    };
    const out = (text: string): void => void process.stdout.write(`${text}\n`);
    const reader = new TopologyLogReader({
      client: new WorkerLogClient(nimbusSecret(config)),
      targets,
      ...(component !== undefined && { component }),
      tailLines,
      onLine: (t, raw) => out(flags.json ? JSON.stringify(jsonLogLine(t, raw)) : flags.raw ? `${t.host}:${t.port} ${raw}` : formatLogLine(t, raw)),
      onProblem: (t, err) => reportProblem(t, err, flags.json === true),
    });
    if (!flags.follow) {
      const skipped = await reader.once();
      if (skipped.size > 0) process.exitCode = 2;
      return;
    }
    const stop = new AbortController();
    const onSignal = (): void => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await reader.follow(stop.signal);
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}

/** A skipped worker, or one whose supervisor answers again: on stderr, or as a JSON line among the others with --json. */
function reportProblem(t: LogTarget, err: HstormError | null, json: boolean): void {
  const worker = `${t.host}:${t.port}`;
  if (json) {
    const body = err ? { code: err.code, message: `${err.message}; skipping worker ${worker}` } : { resumed: true, message: `supervisor ${t.supervisor} answers again` };
    process.stdout.write(`${JSON.stringify({ ...body, supervisor: t.supervisor, host: t.host, port: t.port })}\n`);
    return;
  }
  process.stderr.write(err ? `hstorm: ${err.message}; skipping worker ${worker} [${err.code}]\n` : `hstorm: supervisor ${t.supervisor} answers again; following worker ${worker}\n`);
}
