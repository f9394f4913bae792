/**
 * `hstorm submit <module|flux.yaml> [--name N] [-c k=v]`: loads and validates
 * the topology here (a broken topology fails before anything is sent),
 * bundles it into one ESM file, and uploads it with its sha256 and the
 * serialized topology. A Flux file is compiled to a module first; its
 * `--filter` / `--env-filter` variables are filled here, once, so every
 * worker builds what was validated. `--dry-run` stops after the validation
 * and prints the topology; `--inactive` submits it deactivated.
 */
import type { Command } from 'commander';
import { loadConfiguredTopology } from '../../worker/index.js';
import { NimbusClient } from '../nimbus-client.js';
import { openTopologySource } from '../topology-source.js';
import { dryRun, formatDryRun } from '../dry-run-format.js';
import { fluxDryRun, formatFluxDryRun } from '../flux-dry-run.js';
import { isFluxFile } from '../../flux/index.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';
import { addFluxOptions, fluxOptions, printFluxWarnings, type FluxFlags } from './flux-options.js';

interface SubmitFlags extends ConfigFlags, FluxFlags {
  name?: string;
  json?: boolean;
  dryRun?: boolean;
  inactive?: boolean;
}

export function registerSubmit(program: Command): void {
  addFluxOptions(
    addConfigOptions(
      program
        .command('submit <module>')
        .description('submit a topology (a module, or a Flux .yaml file) to the cluster (-c sets topology config; cluster keys like nimbus.host configure the client)')
        .option('-n, --name <name>', "topology name (letters, digits, _ and -; default: a Flux file's name, else the file or directory name)")
        .option('--inactive', 'submit it deactivated: workers start, spouts wait for `hstorm activate`')
        .option('--dry-run', 'build and validate the topology and print it; submit nothing')
        .option('--json', 'print the result as JSON'),
    ),
  ).action(async (module: string, flags: SubmitFlags) => {
    try {
      await submit(module, flags);
    } finally {
      endDespiteModuleTimers();
    }
  });
}

/**
 * Loading the module ran its code here: a timer or socket it opened would keep
 * this process alive after the submit is done (or refused). Once the command
 * has finished, end the process if anything still holds it; a timer that does
 * not itself keep Node alive, so a process with nothing left exits as usual.
 */
function endDespiteModuleTimers(): void {
  setTimeout(() => process.exit(), 200).unref();
}

async function submit(module: string, flags: SubmitFlags): Promise<void> {
  const { config, topology } = clientConfig(flags);
  if (flags.dryRun && isFluxFile(module)) {
    // A Flux file's dry run loads none of its modules: it runs nothing the file names.
    const r = await fluxDryRun(module, fluxOptions(flags), topology, flags.name);
    for (const w of r.warnings) process.stderr.write(`hstorm: warning: ${w}\n`);
    process.stdout.write(flags.json ? `${JSON.stringify(r)}\n` : `${formatFluxDryRun(r)}\n`);
    return;
  }
  const source = await openTopologySource(module, fluxOptions(flags));
  printFluxWarnings(source);
  const { def, topologyConfig } = await loadConfiguredTopology(source.modulePath, topology);
  const name = flags.name ?? source.defaultName;
  if (flags.dryRun) {
    const r = dryRun(name, module, def, topologyConfig);
    process.stdout.write(flags.json ? `${JSON.stringify(r)}\n` : `${formatDryRun(r)}\n`);
    return;
  }
  const bundle = await source.bundle();
  const client = NimbusClient.fromConfig(config);
  const result = await client.submit({
    name,
    def,
    config: topology,
    bundle: bundle.gz.toString('base64'),
    sha256: bundle.sha256,
    inactive: flags.inactive ?? false,
  });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const workers = result.assignment?.workers ?? [];
  process.stdout.write(
    `submitted topology ${result.name} as ${result.id}${flags.inactive ? ', inactive (start it with `hstorm activate ' + result.name + '`)' : ''} (bundle ${bundle.gz.length} bytes, sha256 ${bundle.sha256.slice(0, 12)}…)\n` +
      workers.map((w) => `  worker ${w.supervisorId} ${w.host}:${w.port}${w.gpu ? ` gpu ${w.gpu.gpuId}` : ''}: ${w.executors.length} executors\n`).join('') +
      (result.assignment?.unassigned.length ? `  ${result.assignment.unassigned.length} executors unassigned (see \`hstorm describe ${result.name}\`)\n` : ''),
  );
}
