/**
 * The one place gpu.js is loaded, on first use: a topology without GPU bolts
 * never pays for it (≈100 ms and its worker-pool machinery).
 */
import type * as GpuJs from 'gpu.js';

export type GpuJsModule = typeof GpuJs;

let loading: Promise<GpuJsModule> | null = null;

export function loadGpuJs(): Promise<GpuJsModule> {
  loading ??= import('gpu.js').catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}
