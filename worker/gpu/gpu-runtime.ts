/**
 * GPU runtime set-up for a worker process, before the topology module loads.
 * (The gpu.js backend is probed later, once, when the first GPU bolt asks
 * through TopologyContext.acquireGpuBackend — see gpu-backend.ts.)
 *
 * A GPU worker must run on the board its assignment names, not on the first
 * adapter of the same model. Dawn selects adapters by name only, so the
 * process narrows what the GPU stacks can see before any of them loads:
 * - CUDA_VISIBLE_DEVICES=<uuid> for CUDA programs the worker starts
 *   (multilang bolts using CuPy or PyTorch);
 * - DRI_PRIME=pci-<bus> with MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE=1 for
 *   Vulkan: Mesa's device-select layer (VK_LAYER_MESA_device_select, shipped
 *   with Debian's mesa-vulkan-drivers) then lists only that board to Dawn.
 * The worker then verifies what Dawn sees (webgpu-device.ts) and reports the
 * identity as verified only when one adapter of that model is left.
 * Variables the operator set are kept.
 */
import type { GpuBinding } from '../../common/assignment.js';
import type { WorkerLaunch } from '../../common/worker-env.js';
import type { Logger } from '../../common/logger.js';

export function installGpuRuntime(launch: WorkerLaunch, log: Logger, env: NodeJS.ProcessEnv = process.env): void {
  if (!launch.gpu) return;
  const set: Record<string, string> = {};
  for (const [k, v] of Object.entries(gpuPinningEnv(launch.gpu))) {
    if (env[k] !== undefined) continue;
    env[k] = v;
    set[k] = v;
  }
  log.info({ gpu: launch.gpu, env: set }, 'worker is bound to a GPU');
}

/** The environment that narrows CUDA and Vulkan to the assigned board. */
export function gpuPinningEnv(gpu: GpuBinding): Record<string, string> {
  const env: Record<string, string> = {};
  if (gpu.source === 'nvidia-smi') env['CUDA_VISIBLE_DEVICES'] = gpu.gpuId;
  const tag = gpu.pciBusId ? driPrimeTag(gpu.pciBusId) : null;
  if (tag) {
    env['DRI_PRIME'] = tag;
    env['MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE'] = '1';
  }
  return env;
}

/** nvidia-smi's "00000000:41:00.0" → Mesa's "pci-0000_41_00_0"; null if it is not a PCI bus id. */
export function driPrimeTag(pciBusId: string): string | null {
  const m = /^(?:([0-9a-f]{4,8}):)?([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(pciBusId.trim());
  if (!m) return null;
  const domain = (m[1] ?? '0000').slice(-4).toLowerCase();
  return `pci-${domain}_${m[2]!.toLowerCase()}_${m[3]!.toLowerCase()}_${m[4]}`;
}
