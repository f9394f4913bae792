/**
 * Chooses the gpu.js backend of a worker process (DESIGN §7) — probe, don't assume:
 * - GPU slot (or a forced GPU backend): WebGPU through the `webgpu` package
 *   (Dawn), on the assigned GPU's adapter, installed as `navigator.gpu`, and
 *   only if an adapter answers within a timeout; then headless-gl if it
 *   loads and makes a context; else the best CPU backend, with the fallback
 *   and every reason logged and reported.
 * - A declared GPU (config, no hardware) runs on the CPU backend and says so.
 * - CPU slot: webasm (SIMD, worker threads in async mode), else cpu.
 * gpu.js keeps one WebGPU device per process, so the probe runs once per
 * process and every GPU bolt task in it shares the answer.
 */
import { availableParallelism } from 'node:os';
import type { GpuBackendHandle, GpuBackendName } from '../topology-sdk/gpu-backend-handle.js';
import { isGpuBackend } from '../topology-sdk/gpu-backend-handle.js';
import { loadGpuJs } from '../topology-sdk/gpu-js.js';
import type { ComponentLogger } from '../topology-sdk/context.js';

/** The GPU a worker is bound to (from its assignment). */
export interface GpuSlot {
  gpuId: string;
  name: string;
  source: string;
}

export type ProbeResult = { ok: true; device: string | null } | { ok: false; reason: string };

export interface GpuBackendProbes {
  /** Installs `navigator.gpu` for `adapterName` (null: Dawn's default) and checks an adapter answers. */
  webgpu(adapterName: string | null, timeoutMs: number): Promise<ProbeResult>;
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
  const result = (backend: GpuBackendName, device: string | null, reason: string | null): GpuBackendSelection => {
    const fallback = backend !== requested;
    const sel = { backend, requested, fallback, fallbackReason: fallback ? reason ?? `${requested} is not available` : null, device, cpuBackend } satisfies GpuBackendSelection;
    if (fallback) log.warn({ backend, requested, reason: sel.fallbackReason, gpu }, 'GPU bolts fall back to another backend');
    else log.info({ backend, device, gpu }, 'GPU bolt backend selected');
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
    const r = b === 'webgpu' ? await probes.webgpu(gpu?.name ?? null, timeoutMs) : await probes.headlessgl();
    if (r.ok) return result(b, r.device, reasons.length ? reasons.join('; ') : null);
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

/**
 * Destroys gpu.js's WebGPU device and removes `navigator.gpu`: Dawn keeps a
 * process alive while it is referenced (short-lived processes — benchmarks —
 * call this before they end; a worker simply exits).
 */
export async function releaseWebGpu(): Promise<void> {
  const g = globalThis as { navigator?: { gpu?: unknown } };
  if (!g.navigator?.gpu) return;
  const gpujs = (await loadGpuJs()) as unknown as { WebGPUContext?: { destroy(): Promise<void> } };
  await gpujs.WebGPUContext?.destroy().catch(() => undefined);
  setNavigatorGpu(undefined);
}

// ── the real probes ──────────────────────────────────────────────────────────

/** The part of the `webgpu` package (Dawn) used here; typed locally so its types are not needed. */
interface DawnModule {
  create(flags: string[]): DawnGpu;
  globals: object;
}
interface DawnGpu {
  requestAdapter(): Promise<{ info?: { description?: string; device?: string; vendor?: string } } | null>;
}

const realProbes: GpuBackendProbes = {
  async webgpu(adapterName, timeoutMs) {
    let dawn: DawnModule;
    try {
      // A variable specifier keeps TypeScript from resolving the package's types (they need @webgpu/types).
      const spec = 'webgpu';
      dawn = (await import(spec)) as DawnModule;
    } catch (err) {
      return { ok: false, reason: `the webgpu package does not load (${message(err)}); it needs glibc ≥ 2.38 and a Vulkan loader` };
    }
    let gpu: DawnGpu;
    try {
      gpu = dawn.create(['backend=vulkan', ...(adapterName ? [`adapter=${adapterName}`] : [])]);
    } catch (err) {
      return { ok: false, reason: `Dawn could not start (${message(err)})` };
    }
    // GPUBufferUsage, GPUMapMode… and navigator.gpu, where gpu.js looks for WebGPU.
    Object.assign(globalThis, dawn.globals);
    setNavigatorGpu(gpu);
    try {
      const adapter = await withTimeout(gpu.requestAdapter(), timeoutMs, `no WebGPU adapter answered within ${timeoutMs} ms`);
      if (!adapter) throw new Error(`no WebGPU adapter${adapterName ? ` named "${adapterName}"` : ''} (Vulkan driver missing?)`);
      const info = adapter.info ?? {};
      return { ok: true, device: info.description || info.device || adapterName || 'webgpu adapter' };
    } catch (err) {
      // Leave no half-working navigator.gpu behind for gpu.js to trip on.
      setNavigatorGpu(undefined);
      return { ok: false, reason: message(err) };
    }
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

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(what)), ms);
    t.unref();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(t);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0] ?? s;
}
