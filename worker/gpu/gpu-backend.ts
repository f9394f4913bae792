/**
 * Chooses the gpu.js backend of a worker process (DESIGN §7) — probe, don't assume:
 * - GPU slot (or a forced GPU backend): WebGPU through the `webgpu` package
 *   (Dawn), on the assigned board's adapter (webgpu-device.ts), installed as
 *   `navigator.gpu`, and only if an adapter answers within a timeout; then
 *   headless-gl if it loads and makes a context; else the best CPU backend,
 *   with the fallback and every reason logged and reported.
 * - A software WebGPU adapter (lavapipe, SwiftShader) is not a GPU: on a GPU
 *   slot it is refused like a missing one; only an explicit
 *   `topology.gpu.backend=webgpu` runs kernels on it, labelled as software.
 * - A declared GPU (config, no hardware) runs on the CPU backend and says so.
 * - CPU slot: webasm (SIMD, worker threads in async mode), else cpu.
 * gpu.js keeps one WebGPU device per process, so the probe runs once per
 * process and every GPU bolt task in it shares the answer.
 */
import { availableParallelism } from 'node:os';
import type { GpuBackendHandle, GpuBackendName, GpuDeviceMonitor } from '../../topology-sdk/gpu-backend-handle.js';
import { isGpuBackend } from '../../topology-sdk/gpu-backend-handle.js';
import { loadGpuJs } from '../../topology-sdk/internal/gpu-js.js';
import type { ComponentLogger } from '../../topology-sdk/context.js';
import { adapterName, type GpuAdapterReport } from '../../common/webgpu-adapter.js';
import { WebGpuDevices, type WebGpuTarget } from './webgpu-device.js';

/** The GPU a worker is bound to (from its assignment). */
export interface GpuSlot {
  gpuId: string;
  name: string;
  source: string;
  pciBusId?: string | null;
}

export type ProbeResult =
  | { ok: true; device: string | null; adapter?: GpuAdapterReport; monitor?: GpuDeviceMonitor }
  | { ok: false; reason: string };

export interface GpuBackendProbes {
  /** Opens the assigned board's WebGPU adapter (null: Dawn's default) and installs `navigator.gpu`; a software adapter only if `allowSoftware`. */
  webgpu(target: WebGpuTarget | null, timeoutMs: number, allowSoftware: boolean, log: ComponentLogger): Promise<ProbeResult>;
  headlessgl(): Promise<ProbeResult>;
  webasm(): Promise<ProbeResult>;
}

export type ForcedBackend = 'auto' | GpuBackendName;

export interface GpuBackendSelection {
  backend: GpuBackendName;
  requested: GpuBackendName;
  fallback: boolean;
  fallbackReason: string | null;
  device: string | null;
  adapter: GpuAdapterReport | null;
  monitor: GpuDeviceMonitor | null;
  cpuBackend: 'webasm' | 'cpu';
}

export interface SelectOptions {
  gpu: GpuSlot | null;
  forced: ForcedBackend;
  log: ComponentLogger;
  /** How long an adapter may take to answer (default 5 s). */
  probeTimeoutMs?: number;
  /** Replace probes (tests); the rest are the real ones. */
  probes?: Partial<GpuBackendProbes>;
}

export async function selectGpuBackend(opts: SelectOptions): Promise<GpuBackendSelection> {
  const probes: GpuBackendProbes = { ...realProbes, ...opts.probes };
  const timeoutMs = opts.probeTimeoutMs ?? 5000;
  const { gpu, forced, log } = opts;
  const wasm = await probes.webasm();
  const cpuBackend = wasm.ok ? 'webasm' : 'cpu';
  const cpuNote = wasm.ok ? '' : ` (webasm unavailable: ${wasm.reason})`;
  const requested: GpuBackendName = forced !== 'auto' ? forced : gpu ? 'webgpu' : 'webasm';
  const result = (backend: GpuBackendName, probe: Extract<ProbeResult, { ok: true }> | null, reason: string | null): GpuBackendSelection => {
    const fallback = backend !== requested;
    const sel: GpuBackendSelection = {
      backend,
      requested,
      fallback,
      fallbackReason: fallback ? reason ?? `${requested} is not available` : null,
      device: probe?.device ?? null,
      adapter: probe?.adapter ?? null,
      monitor: probe?.monitor ?? null,
      cpuBackend,
    };
    if (fallback) log.warn({ backend, requested, reason: sel.fallbackReason, gpu }, 'GPU bolts fall back to another backend');
    else log.info({ backend, device: sel.device, adapter: sel.adapter, gpu }, 'GPU bolt backend selected');
    return sel;
  };

  const wantGpu = forced === 'auto' ? gpu !== null : isGpuBackend(forced);
  if (!wantGpu) {
    if (forced === 'cpu') return result('cpu', null, null);
    return result(cpuBackend, null, wasm.ok ? null : `webasm unavailable: ${wasm.reason}`);
  }
  if (forced === 'auto' && gpu?.source === 'declared') {
    return result(cpuBackend, null, `GPU "${gpu.gpuId}" (${gpu.name}) is declared in config with no hardware behind it: kernels run on the ${cpuBackend} CPU backend${cpuNote}`);
  }
  const order: GpuBackendName[] = forced === 'auto' ? ['webgpu', 'headlessgl'] : [forced];
  const reasons: string[] = [];
  for (const b of order) {
    // A software adapter counts only when the user chose webgpu explicitly (it is a CPU behind the WebGPU API).
    // A declared GPU names no device: a forced webgpu takes Dawn's default adapter.
    const target = gpu && gpu.source !== 'declared' ? { name: gpu.name, gpuId: gpu.gpuId, pciBusId: gpu.pciBusId ?? null } : null;
    const r = b === 'webgpu' ? await probes.webgpu(target, timeoutMs, forced === 'webgpu', log) : await probes.headlessgl();
    if (r.ok) return result(b, r, reasons.length ? reasons.join('; ') : null);
    reasons.push(`${b}: ${r.reason}`);
  }
  return result(cpuBackend, null, `no GPU backend works here (${reasons.join('; ')}); kernels run on the ${cpuBackend} CPU backend${cpuNote}`);
}

/**
 * The GPU backends of one worker process: one probe per forced mode, and the
 * CPU thread budget (`topology.gpu.cpu.threads`, default: cores) shared among
 * the GPU-bolt tasks that acquired a backend.
 */
export class WorkerGpuBackends {
  private readonly selections = new Map<ForcedBackend, Promise<GpuBackendSelection>>();
  private tasks = 0;
  private readonly threadBudget: number;

  constructor(
    private readonly gpu: GpuSlot | null,
    threads: number | null,
    private readonly log: ComponentLogger,
    private readonly probes?: Partial<GpuBackendProbes>,
  ) {
    this.threadBudget = Math.max(1, threads ?? availableParallelism());
  }

  async acquire(forced: ForcedBackend): Promise<GpuBackendHandle> {
    let sel = this.selections.get(forced);
    if (!sel) {
      sel = selectGpuBackend({ gpu: this.gpu, forced, log: this.log, ...(this.probes ? { probes: this.probes } : {}) });
      this.selections.set(forced, sel);
    }
    const s = await sel;
    this.tasks++;
    return { ...s, cpuThreads: () => Math.max(1, Math.floor(this.threadBudget / Math.max(1, this.tasks))) };
  }
}

/** The WebGPU this process opened (one per process), so that it can be released before exit. */
let openedWebGpu: WebGpuDevices | null = null;

/**
 * Destroys gpu.js's WebGPU device and removes `navigator.gpu`: Dawn crashes
 * a process that exits with a live device. Workers call this on their way
 * out; so do benchmarks. Dawn's event processing keeps the event loop alive
 * until its device objects are garbage-collected, so a short-lived process
 * that still references them exits explicitly (bench/main.ts does).
 */
export async function releaseWebGpu(): Promise<void> {
  const g = globalThis as { navigator?: { gpu?: unknown } };
  if (!g.navigator?.gpu) return;
  const opened = openedWebGpu;
  openedWebGpu = null;
  opened?.release();
  const gpujs = (await loadGpuJs()) as unknown as { WebGPUContext?: { destroy(): Promise<void> } };
  await gpujs.WebGPUContext?.destroy().catch(() => undefined);
  setNavigatorGpu(undefined);
}

// ── the real probes ──────────────────────────────────────────────────────────

const realProbes: GpuBackendProbes = {
  async webgpu(target, timeoutMs, allowSoftware, log) {
    const r = await WebGpuDevices.open(target, { timeoutMs, allowSoftware, log });
    if (!r.ok) return r;
    openedWebGpu = r.webgpu;
    setNavigatorGpu(r.webgpu.navigatorGpu);
    const adapter = r.webgpu.adapter;
    return { ok: true, device: adapterName(adapter), adapter, monitor: r.webgpu };
  },

  async headlessgl() {
    let createGl: (w: number, h: number) => { getExtension(name: string): { destroy(): void } | null } | null;
    try {
      const spec = 'gl';
      const mod = (await import(spec)) as { default?: typeof createGl } & typeof createGl;
      createGl = mod.default ?? mod;
    } catch (err) {
      return { ok: false, reason: `the gl package (headless-gl) is not installed or does not load (${firstLine(message(err))})` };
    }
    try {
      const ctx = createGl(1, 1);
      if (!ctx) return { ok: false, reason: 'headless-gl could not create a context (no GL driver or display)' };
      ctx.getExtension('STACKGL_destroy_context')?.destroy();
      return { ok: true, device: 'headless-gl' };
    } catch (err) {
      return { ok: false, reason: `headless-gl failed (${message(err)})` };
    }
  },

  async webasm() {
    try {
      const { GPU } = await loadGpuJs();
      if (!GPU.isWebAssemblySupported) return { ok: false, reason: 'WebAssembly SIMD is not supported by this runtime' };
      if (typeof SharedArrayBuffer !== 'function') return { ok: false, reason: 'SharedArrayBuffer is unavailable, so webasm cannot use threads' };
      return { ok: true, device: null };
    } catch (err) {
      return { ok: false, reason: `gpu.js does not load (${message(err)})` };
    }
  },
};

/** Node 21+ has a `navigator` whose properties are getter-only; Node 20 has none at all. */
function setNavigatorGpu(gpu: unknown): void {
  const g = globalThis as { navigator?: object };
  if (g.navigator === undefined) Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true, writable: true });
  Object.defineProperty(g.navigator, 'gpu', { value: gpu, configurable: true, writable: true, enumerable: true });
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0] ?? s;
}
