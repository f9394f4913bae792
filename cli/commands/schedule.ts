/**
 * `hstorm schedule <module> --cluster cluster.json`: a dry run of the
 * scheduler. Loads the topology as `submit` would, places it on the cluster
 * the JSON file describes with the configured strategy, and prints every
 * worker with the reason for it — nothing is sent anywhere.
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { parseOverrides, readConfigFile } from '../../common/config/index.js';
import { CliUsageError } from '../../common/errors.js';
import { dryRun, type DryRunResult } from '../../nimbus/dry-run.js';
import { packageRoot } from '../../common/package-root.js';
import { loadConfiguredTopology, resolveModulePath } from '../../worker/load-topology.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';

interface ScheduleFlags extends ConfigFlags {
  cluster: string;
  topology?: string;
  name: string;
  strategy?: string;
  gpuFallback?: boolean;
  json?: boolean;
}

function readClusterFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliUsageError(`cannot read cluster file ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliUsageError(`cluster file ${path} is not valid JSON: ${(err as Error).message}`);
  }
}

export function formatDryRun(name: string, strategy: string, r: DryRunResult): string {
  const lines = [`topology ${name} (${strategy}): ${r.workers.length} workers, ${r.unassigned.length} executors unassigned`];
  for (const w of r.workers) {
    const tasks = w.executors.map((x) => `${x.component}#${x.task}`).join(' ');
    lines.push(`  ${w.supervisor}:${w.port}  ${w.gpu ? `GPU ${w.gpu}` : 'CPU'}  ${tasks}`, `      ${w.reason}`);
  }
  if (r.unassigned.length) {
    lines.push('unassigned:');
    for (const u of r.unassigned) lines.push(`  ${u.component}#${u.task}: ${u.reason}`);
  }
  return lines.join('\n');
}

export function registerSchedule(program: Command): void {
  addConfigOptions(
    program
      .command('schedule [module]')
      .description('dry run: place a topology on a cluster described in a JSON file and show each decision with its reason')
      .option('--topology <module>', 'the topology module (or give it as the argument)')
      .requiredOption('--cluster <file>', 'cluster JSON: {"supervisors":[{"id","host","ports":[…],"gpus":[{"id","name","smCount","clockMHz","computeCapability",…}]}]}')
      .option('-n, --name <name>', 'topology id to show', 'dry-run')
      .option('--strategy <name>', 'even or hetero (default: nimbus.scheduler)')
      .option('--gpu-fallback', 'run GPU executors in CPU workers (CPU backend) when no GPU slot is free')
      .option('--json', 'print the placement as JSON'),
  ).action(async (positional: string | undefined, flags: ScheduleFlags) => {
    const module = flags.topology ?? positional;
    if (!module) throw new CliUsageError('missing topology module: give --topology <module> (or the module as the argument)');
    if (flags.strategy !== undefined && flags.strategy !== 'even' && flags.strategy !== 'hetero') {
      throw new CliUsageError(`invalid --strategy "${flags.strategy}": allowed: even, hetero`);
    }
    const cluster = readClusterFile(flags.cluster);
    // The config file's keys (cluster and topology defaults), then the module's config, then -c.
    const file = readConfigFile(flags.config ?? 'hstorm.yaml', flags.config !== undefined);
    const overrides = parseOverrides(flags.conf);
    const modulePath = resolveModulePath(module, packageRoot());
    const { def, config } = await loadConfiguredTopology(modulePath, overrides, [file]);
    const strategy = flags.strategy ?? (config['nimbus.scheduler'] as string);
    const result = dryRun({
      cluster,
      topology: def,
      config,
      topologyId: flags.name,
      strategy: strategy === 'even' ? 'even' : 'hetero',
      gpuFallbackToCpu: flags.gpuFallback === true,
    });
    process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatDryRun(flags.name, strategy, result)}\n`);
  });
}
