/**
 * `hstorm schedule <module|flux.yaml> --cluster cluster.json`: a dry run of the
 * scheduler. Loads the topology as `submit` would, places it on the cluster
 * the JSON file describes (supervisors, what is in use, running topologies)
 * with the configured strategy, fairness and GPU fallback, and prints every
 * worker with the reason for it — or, under HDRF, why it would wait. Nothing
 * is sent anywhere. The file format is in docs/scheduling.md.
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { parseOverrides, readConfigFile } from '../../common/config/index.js';
import { CliUsageError } from '../../common/errors.js';
import { dryRun, type DryRunResult } from '../../nimbus/dry-run.js';
import { loadConfiguredTopology } from '../../worker/index.js';
import { openTopologySource } from '../topology-source.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';
import { addFluxOptions, fluxOptions, printFluxWarnings, type FluxFlags } from './flux-options.js';

interface ScheduleFlags extends ConfigFlags, FluxFlags {
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
  if (r.queue) {
    lines.push(`HDRF: it would ${r.queue.state === 'reserved' ? 'hold a reservation' : 'wait'}: ${r.queue.reason}`);
    return lines.join('\n');
  }
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
  addFluxOptions(addConfigOptions(
    program
      .command('schedule [module]')
      .description('dry run: place a topology on a cluster described in a JSON file and show each decision with its reason')
      .option('--topology <module>', 'the topology module (or give it as the argument)')
      .requiredOption(
        '--cluster <file>',
        'cluster JSON: {"supervisors":[{"id","host","ports":[…],"cpus","memoryMB","usedPorts":[…],"gpus":[{"id","name","smCount","clockMHz","memoryMB","computeCapability","usedSlots","usedMemoryMB",…}]}],"topologies":[{"id","workers":[{"supervisor","port","gpu","resources"}]}]} (docs/scheduling.md)',
      )
      .option('-n, --name <name>', 'topology id to show', 'dry-run')
      .option('--strategy <name>', 'even, hetero or hdrf (default: nimbus.scheduler)')
      .option('--gpu-fallback', 'run GPU executors in CPU workers (CPU backend) when no GPU slot is free (default: nimbus.scheduler.gpu.fallback.cpu)')
      .option('--no-gpu-fallback', 'leave GPU executors without a GPU slot unassigned, whatever the config says')
      .option('--json', 'print the placement as JSON'),
  )).action(async (positional: string | undefined, flags: ScheduleFlags) => {
    const module = flags.topology ?? positional;
    if (!module) throw new CliUsageError('missing topology module: give --topology <module> (or the module as the argument)');
    const strategies = ['even', 'hetero', 'hdrf'] as const;
    const isStrategy = (s: string): s is (typeof strategies)[number] => (strategies as readonly string[]).includes(s);
    const given = flags.strategy;
    if (given !== undefined && !isStrategy(given)) {
      throw new CliUsageError(`invalid --strategy "${given}": allowed: ${strategies.join(', ')}`);
    }
    const cluster = readClusterFile(flags.cluster);
    // The config file's keys (cluster and topology defaults), then the module's config, then -c.
    const file = readConfigFile(flags.config ?? 'hstorm.yaml', flags.config !== undefined);
    const overrides = parseOverrides(flags.conf);
    const source = await openTopologySource(module, fluxOptions(flags));
    printFluxWarnings(source);
    const { def, config } = await loadConfiguredTopology(source.modulePath, overrides, [file]);
    const strategy = given ?? config['nimbus.scheduler'];
    const result = dryRun({
      cluster,
      topology: def,
      config,
      topologyId: flags.name,
      strategy,
      // Only an explicit --gpu-fallback / --no-gpu-fallback overrides nimbus.scheduler.gpu.fallback.cpu.
      ...(flags.gpuFallback !== undefined && { gpuFallbackToCpu: flags.gpuFallback }),
    });
    process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatDryRun(flags.name, strategy, result)}\n`);
  });
}
