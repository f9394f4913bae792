/** The gpu.js backends hstorm runs kernels on, and which of them are GPUs (the rest run on the CPU). */

/** gpu.js modes hstorm runs kernels on: two GPU backends, two CPU backends. */
export type GpuBackendName = 'webgpu' | 'headlessgl' | 'webasm' | 'cpu';

export const GPU_BACKENDS: readonly GpuBackendName[] = ['webgpu', 'headlessgl'];

export function isGpuBackend(name: string): boolean {
  return (GPU_BACKENDS as readonly string[]).includes(name);
}
