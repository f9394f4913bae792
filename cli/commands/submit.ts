/**
 * `hstorm submit <module> [--name N] [-c k=v]`: loads and validates the module
 * here (a broken topology fails before anything is sent), bundles it into one
 * ESM file, and uploads it with its sha256 and the serialized topology.
 */
import type { Command } from 'commander';
import { defaultTopologyName, loadConfiguredTopology, resolveModulePath } from '../../worker/index.js';
import { packageRoot } from '../../common/package-root.js';
import { NimbusClient } from '../nimbus-client.js';
import { bundleTopology } from '../topology-bundle.js';
import { clientConfig } from './client-config.js';
import { addConfigOptions, type ConfigFlags } from './config-options.js';

interface SubmitFlags extends ConfigFlags {
  name?: string;
  json?: boolean;
}

export function registerSubmit(program: Command): void {
  addConfigOptions(
    program
      .command('submit <module>')
      .description('submit a topology module to the cluster (-c sets topology config; cluster keys like nimbus.host configure the client)')
      .option('-n, --name <name>', 'topology name (letters, digits, _ and -; default: the module file or directory name)')
      .option('--json', 'print the result as JSON'),
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
  const modulePath = resolveModulePath(module, packageRoot());
  const { def } = await loadConfiguredTopology(modulePath, topology);
  const bundle = await bundleTopology(modulePath);
  const client = NimbusClient.fromConfig(config);
  const result = await client.submit({
    name: flags.name ?? defaultTopologyName(modulePath),
    def,
    config: topology,
    bundle: bundle.gz.toString('base64'),
    sha256: bundle.sha256,
  });
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const workers = result.assignment?.workers ?? [];
  process.stdout.write(
    `submitted topology ${result.name} as ${result.id} (bundle ${bundle.gz.length} bytes, sha256 ${bundle.sha256.slice(0, 12)}…)\n` +
      workers.map((w) => `  worker ${w.supervisorId} ${w.host}:${w.port}${w.gpu ? ` gpu ${w.gpu.gpuId}` : ''}: ${w.executors.length} executors\n`).join('') +
      (result.assignment?.unassigned.length ? `  ${result.assignment.unassigned.length} executors unassigned (see \`hstorm describe ${result.name}\`)\n` : ''),
  );
}
