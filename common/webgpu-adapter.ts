/**
 * What a WebGPU adapter is, as hstorm reports it (DESIGN §7): its description,
 * whether it is a software rasterizer (never a GPU), and which physical board
 * it is. Shared by GPU discovery (supervisor), the worker that opens the
 * adapter, and every report that names it.
 */

/** The strings Dawn's `GPUAdapterInfo` exposes (no PCI id, SM count, clock or memory). */
export interface WebGpuAdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
}

/** The adapter a GPU bolt's kernels run on, as metrics and summaries carry it. */
export interface GpuAdapterReport extends WebGpuAdapterInfo {
  /** lavapipe, SwiftShader, WARP…: a CPU behind the WebGPU API. Never a GPU slot; only an explicit `topology.gpu.backend=webgpu` runs on it. */
  software: boolean;
  /** The board the kernels run on: PCI bus id and/or GPU uuid from the assignment, or the adapter name alone. */
  identity: string;
  /** False when the worker could not prove that the adapter is the board its assignment names (say, two identical boards). */
  identityVerified: boolean;
}

const SOFTWARE = /swiftshader|llvmpipe|lavapipe|software|microsoft basic/i;

/** Software rasterizers answer requestAdapter too; they are CPUs, never GPUs. `fallback` is Dawn's `isFallbackAdapter`. */
export function isSoftwareAdapter(a: WebGpuAdapterInfo, fallback = false): boolean {
  return fallback || SOFTWARE.test(`${a.vendor} ${a.architecture} ${a.device} ${a.description}`);
}

/** The adapter's human name: Dawn puts the model in `device` and the driver in `description`. */
export function adapterName(a: WebGpuAdapterInfo): string {
  return a.device || a.description || [a.vendor, a.architecture].filter(Boolean).join(' ') || 'WebGPU adapter';
}

/** "webgpu (software adapter: llvmpipe …)" or "webgpu (NVIDIA H100 …)": a software adapter is never shown as a GPU. */
export function webgpuLabel(a: Pick<GpuAdapterReport, 'software' | 'device' | 'description' | 'vendor' | 'architecture'> | null): string {
  if (!a) return 'webgpu';
  return a.software ? `webgpu (software adapter: ${adapterName(a)})` : `webgpu (${adapterName(a)})`;
}
