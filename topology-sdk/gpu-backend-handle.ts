/**
 * What the worker hands a GPU bolt about the gpu.js backend of its process
 * (DESIGN §7): the backend it selected after probing, what was asked for, and
 * why it fell back when it did. The worker probes; the bolt only builds its
 * kernel on the answer, and reports what the kernel actually ran on.
 */

import type { GpuBackendName } from '../common/gpu-backends.js';
import type { GpuAdapterReport } from '../common/webgpu-adapter.js';
import type { GpuDeviceStats } from '../common/storm-base.js';

export type { GpuDeviceStats };

export { GPU_BACKENDS, isGpuBackend, type GpuBackendName } from '../common/gpu-backends.js';

export interface GpuBackendHandle {
  /** The backend the worker selected (a kernel may still degrade; GpuBolt reports what ran). */
  readonly backend: GpuBackendName;
  /** What was asked for: the forced `topology.gpu.backend`, 'webgpu' on a GPU slot, 'webasm' on a CPU slot. */
  readonly requested: GpuBackendName;
  /** True when `backend` is not `requested`; `fallbackReason` says why. */
  readonly fallback: boolean;
  readonly fallbackReason: string | null;
  /** The adapter that answered (GPU backends), else null. */
  readonly device: string | null;
  /** WebGPU: what the adapter is (software or a GPU) and which board. */
  readonly adapter: GpuAdapterReport | null;
  /** WebGPU: watches the device (error scopes around launches, device loss); null on other backends. */
  readonly monitor: GpuDeviceMonitor | null;
  /** The CPU backend to rebuild a kernel on if the GPU backend cannot run it. */
  readonly cpuBackend: 'webasm' | 'cpu';
  /**
   * Threads one task's CPU-backend kernels may use: the worker's budget
   * (`topology.gpu.cpu.threads`, default: cores) shared among the GPU-bolt
   * tasks that acquired a backend in this process. Read it when building the
   * kernel, after every task prepared.
   */
  cpuThreads(): number;
}

export interface GpuDeviceMonitor {
  /** Runs one launch inside the device's error scopes; rejects when the device reported an error for it. */
  guard<T>(launch: () => Promise<T>): Promise<T>;
  stats(): GpuDeviceStats;
}
