/**
 * GPU runtime set-up for a worker process, before the topology module loads.
 * (The gpu.js backend is probed later, once, when the first GPU bolt asks
 * through TopologyContext.acquireGpuBackend — see gpu-backend.ts.)
 */
import type { WorkerLaunch } from '../common/worker-env.js';
import type { Logger } from '../common/logger.js';

export async function installGpuRuntime(launch: WorkerLaunch, _config: Readonly<Record<string, unknown>>, log: Logger): Promise<void> {
  if (launch.gpu) log.info({ gpu: launch.gpu }, 'worker is bound to a GPU');
}
