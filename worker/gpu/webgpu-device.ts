/**
 * WebGPU for gpu.js through Dawn (the `webgpu` package), opened on the board
 * a worker's assignment names and watched while kernels run.
 *
 * Why this layer exists:
 * - gpu.js 2.24.1 pins webgpu 0.2.9 and, right after creating its device,
 *   assigns `device.onuncapturederror = fn`. That Dawn binding rejects every
 *   value for that attribute ("invalid value to onuncapturederror") and has
 *   no working uncapturederror event at all (addEventListener answers
 *   UNIMPLEMENTED), so every WebGPU kernel build failed and GPU bolts fell
 *   back to a CPU backend. We give gpu.js a `navigator.gpu` whose devices
 *   carry an own accessor for that attribute (shadowing Dawn's), so the
 *   assignment succeeds; node_modules stays untouched.
 * - Because Dawn never delivers uncaptured errors to JavaScript (it prints
 *   them to stderr), and gpu.js's steady-state launch is synchronous up to
 *   queue.submit — a validation error there would resolve an all-zeros
 *   result — each launch runs inside error scopes (`guard`), and an error
 *   there fails the launch. The device's `lost` promise is followed too.
 * - Dawn picks adapters by a substring of their name only. Which boards are
 *   visible is learnt from Dawn's own refusal message (it lists every adapter
 *   when a name matches none), so the worker can tell "the only adapter named
 *   X" (verified) from "one of two identical boards" (not verifiable through
 *   Dawn 0.2.9: reported as such).
 * - Dawn is loaded with RTLD_DEEPBIND on Linux (common/dawn-addon.ts): under
 *   Node 24 it otherwise binds to Node's abseil and aborts the process.
 */
import { loadDawnAddon } from '../../common/dawn-addon.js';
import { adapterName, isSoftwareAdapter, type GpuAdapterReport, type WebGpuAdapterInfo } from '../../common/webgpu-adapter.js';
import type { GpuDeviceMonitor, GpuDeviceStats } from '../../topology-sdk/gpu-backend-handle.js';
import type { ComponentLogger } from '../../topology-sdk/context.js';
import { GpuLaunchError } from '../errors.js';

/** The board a GPU worker is bound to (from its assignment). */
export interface WebGpuTarget {
  /** The GPU model as the supervisor discovered it (nvidia-smi or the adapter's name). */
  name: string;
  gpuId: string;
  pciBusId?: string | null;
}

/** The part of the `webgpu` package used here; typed locally so its types are not needed. */
export interface DawnModule {
  create(flags: string[]): DawnGpu;
  globals: object;
}
export interface DawnGpu {
  requestAdapter(options?: object): Promise<DawnAdapter | null>;
  getPreferredCanvasFormat?(): string;
}
export interface DawnAdapter {
  info?: Partial<WebGpuAdapterInfo>;
  isFallbackAdapter?: boolean;
  requestDevice(descriptor?: object): Promise<DawnDevice>;
}
export interface DawnDevice {
  lost: Promise<{ reason: string; message: string }>;
  pushErrorScope(filter: 'validation' | 'out-of-memory' | 'internal'): void;
  popErrorScope(): Promise<{ message: string } | null>;
  destroy(): void;
}

export type OpenResult = { ok: true; webgpu: WebGpuDevices } | { ok: false; reason: string };

/** How long a failed launch waits for its device's `lost` promise before its failure is handed on. */
const LOSS_SETTLE_MS = 500;

/** An adapter name no board has: Dawn then rejects with the list of the adapters it sees. */
const NO_SUCH_ADAPTER = '\u0001hstorm-list-adapters';

/** Parses Dawn's " * backend: 'vulkan', name: 'NVIDIA H100 80GB HBM3'" lines. */
export function parseAdapterList(message: string): string[] {
  const names: string[] = [];
  for (const m of message.matchAll(/^\s*\* backend: '[^']*', name: '(.*)'\s*$/gm)) names.push(m[1]!);
  return names;
}

export interface AdapterChoice {
  /** Dawn's `adapter=` flag value, or null for Dawn's default adapter. */
  filter: string | null;
  identity: string;
  verified: boolean;
  /** Why the identity could not be verified; null when it was. */
  caveat: string | null;
}

/**
 * Which adapter to ask Dawn for, given what it lists and the board the
 * assignment names. Pure (the worker's I/O is around it).
 */
export function chooseAdapter(visible: readonly string[], target: WebGpuTarget | null): AdapterChoice | { error: string } {
  if (visible.length === 0) return { error: 'Dawn sees no Vulkan adapter (no Vulkan driver installed?)' };
  if (!target) {
    return visible.length === 1
      ? { filter: null, identity: `adapter "${visible[0]}" (the only one)`, verified: true, caveat: null }
      : { filter: null, identity: `adapter "${visible[0]}" (Dawn's default of ${visible.length})`, verified: false, caveat: `${visible.length} adapters are visible and no GPU was assigned` };
  }
  const exact = visible.filter((n) => n === target.name);
  const matches = exact.length ? exact : visible.filter((n) => n.includes(target.name));
  const board = [target.pciBusId ? `PCI ${target.pciBusId}` : null, `GPU ${target.gpuId}`].filter(Boolean).join(', ');
  if (matches.length === 0) {
    return { error: `no WebGPU adapter is named "${target.name}" (the GPU this worker is assigned); Dawn sees: ${visible.map((n) => `"${n}"`).join(', ')}` };
  }
  if (matches.length === 1) return { filter: matches[0]!, identity: `${matches[0]} (${board}; the only adapter of that name)`, verified: true, caveat: null };
  return {
    filter: matches[0]!,
    identity: `${matches[0]} (${board} assigned)`,
    verified: false,
    caveat:
      `${matches.length} identical adapters named "${matches[0]}" are visible and Dawn selects by name only, ` +
      `so kernels run on the first in Vulkan order, which may not be ${board}; ` +
      `restrict the worker's Vulkan devices (Mesa's device-select layer: see docs/gpu.md) to pin the board`,
  };
}

/**
 * One worker process's WebGPU: the adapter it opened (once per process — gpu.js
 * keeps one device per process) and the devices gpu.js created on it.
 */
export class WebGpuDevices implements GpuDeviceMonitor {
  private current: DawnDevice | null = null;
  private releasing = false;
  private readonly counters: GpuDeviceStats = { devices: 0, lost: 0, lastLost: null, errors: 0, lastError: null };
  /** Installed as `navigator.gpu`, where gpu.js looks for WebGPU. */
  readonly navigatorGpu: DawnGpu;

  private constructor(
    private readonly gpu: DawnGpu,
    readonly adapter: GpuAdapterReport,
    private readonly log: ComponentLogger,
  ) {
    this.navigatorGpu = {
      requestAdapter: async (options?: object) => {
        const a = await this.gpu.requestAdapter(options);
        if (a) this.wrapAdapter(a);
        return a;
      },
      getPreferredCanvasFormat: () => this.gpu.getPreferredCanvasFormat?.() ?? 'rgba8unorm',
    };
  }

  /**
   * Loads Dawn, finds the assigned board among the visible adapters, opens it
   * and checks what it is. A software adapter is refused unless `allowSoftware`
   * (the user forced `topology.gpu.backend=webgpu`).
   */
  static async open(target: WebGpuTarget | null, opts: { timeoutMs: number; allowSoftware: boolean; log: ComponentLogger; loadDawn?: () => Promise<DawnModule> }): Promise<OpenResult> {
    let dawn: DawnModule;
    try {
      dawn = await (opts.loadDawn ?? loadDawn)();
    } catch (err) {
      return { ok: false, reason: `the webgpu package does not load (${firstLine(message(err))}); it needs glibc ≥ 2.38 and a Vulkan loader — scripts/webgpu-runtime.sh prepares both` };
    }
    // GPUBufferUsage, GPUMapMode… are globals gpu.js's WebGPU backend reads.
    Object.assign(globalThis, dawn.globals);
    let visible: string[];
    try {
      visible = await withTimeout(listAdapters(dawn), opts.timeoutMs, `Dawn did not list its adapters within ${opts.timeoutMs} ms`);
    } catch (err) {
      return { ok: false, reason: message(err) };
    }
    const choice = chooseAdapter(visible, target);
    if ('error' in choice) return { ok: false, reason: choice.error };
    let gpu: DawnGpu;
    let adapter: DawnAdapter | null;
    try {
      gpu = dawn.create(['backend=vulkan', ...(choice.filter ? [`adapter=${choice.filter}`] : [])]);
      adapter = await withTimeout(gpu.requestAdapter(), opts.timeoutMs, `no WebGPU adapter answered within ${opts.timeoutMs} ms`);
    } catch (err) {
      return { ok: false, reason: firstLine(message(err)) };
    }
    if (!adapter) return { ok: false, reason: 'Dawn returned no adapter' };
    const info: WebGpuAdapterInfo = {
      vendor: String(adapter.info?.vendor ?? ''),
      architecture: String(adapter.info?.architecture ?? ''),
      device: String(adapter.info?.device ?? ''),
      description: String(adapter.info?.description ?? ''),
    };
    const software = isSoftwareAdapter(info, adapter.isFallbackAdapter === true);
    if (software && !opts.allowSoftware) {
      return { ok: false, reason: `the only WebGPU adapter is a software one (${adapterName(info)}), not a GPU; set topology.gpu.backend=webgpu to run kernels on it anyway` };
    }
    const report: GpuAdapterReport = { ...info, software, identity: choice.identity, identityVerified: choice.verified };
    if (choice.caveat) opts.log.warn({ adapter: report }, `GPU identity not verified: ${choice.caveat}`);
    return { ok: true, webgpu: new WebGpuDevices(gpu, report, opts.log) };
  }

  /** Runs one launch inside the device's error scopes; an error there fails it (it would have resolved wrong data). */
  async guard<T>(launch: () => Promise<T>): Promise<T> {
    const d = this.current;
    if (!d) return launch(); // the first launch creates the device: gpu.js checks its own build with error scopes
    d.pushErrorScope('internal');
    d.pushErrorScope('out-of-memory');
    d.pushErrorScope('validation');
    let result: Promise<T>;
    try {
      result = launch();
    } catch (err) {
      result = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    // Popped in the same synchronous turn as pushed, so launches of other tasks cannot interleave with these scopes.
    const scopes = [d.popErrorScope(), d.popErrorScope(), d.popErrorScope()].map((p) => p.catch(() => null));
    const [outcome, ...errors] = await Promise.allSettled([result, ...scopes]);
    const first = errors.map((e) => (e.status === 'fulfilled' ? e.value : null)).find((e) => e !== null);
    if (!first && outcome.status === 'fulfilled') return outcome.value;
    // A launch on a device being lost fails (AbortError) before Dawn settles `lost`: wait for it briefly,
    // so that whoever handles this failure sees the loss counted and can rebuild on a fresh device.
    await Promise.race([d.lost, new Promise((r) => setTimeout(r, LOSS_SETTLE_MS).unref())]);
    if (first) {
      this.counters.errors++;
      this.counters.lastError = firstLine(first.message);
      throw new GpuLaunchError(this.counters.lastError);
    }
    throw (outcome as PromiseRejectedResult).reason;
  }

  stats(): GpuDeviceStats {
    return { ...this.counters };
  }

  /** Destroys the device (Dawn crashes a process that exits with a live device, and keeps it alive while referenced). */
  release(): void {
    this.releasing = true;
    this.current?.destroy();
    this.current = null;
  }

  private wrapAdapter(a: DawnAdapter): void {
    const requestDevice = a.requestDevice.bind(a);
    Object.defineProperty(a, 'requestDevice', {
      configurable: true,
      value: async (descriptor?: object) => {
        const d = await requestDevice(descriptor);
        this.watch(d);
        return d;
      },
    });
  }

  private watch(d: DawnDevice): void {
    let handler: unknown = null;
    // See the header: Dawn 0.2.9 refuses any value here and never fires the event; an own accessor takes gpu.js's handler.
    Object.defineProperty(d, 'onuncapturederror', { configurable: true, enumerable: true, get: () => handler, set: (v: unknown) => void (handler = v) });
    this.current = d;
    this.counters.devices++;
    void d.lost.then((info) => {
      if (this.current === d) this.current = null;
      if (this.releasing) return;
      this.counters.lost++;
      this.counters.lastLost = `${info.reason}: ${firstLine(info.message)}`;
      this.log.warn({ reason: info.reason, message: info.message, adapter: this.adapter.identity }, 'WebGPU device lost');
    });
  }
}

async function loadDawn(): Promise<DawnModule> {
  // Mesa's Vulkan drivers complain on stderr when this is unset (headless daemons rarely have it).
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  return (await loadDawnAddon()) as DawnModule;
}

/** Every adapter name Dawn sees over Vulkan, from the list it gives when refusing an unknown name. */
async function listAdapters(dawn: DawnModule): Promise<string[]> {
  try {
    const a = await dawn.create(['backend=vulkan', `adapter=${NO_SUCH_ADAPTER}`]).requestAdapter();
    if (a) throw new Error('Dawn matched an adapter to an impossible name');
    return []; // no adapter at all: Dawn resolves null instead of listing
  } catch (err) {
    const names = parseAdapterList(message(err));
    if (names.length === 0 && !/Available adapters/.test(message(err))) throw new Error(`Dawn could not list its adapters (${firstLine(message(err))})`);
    return names;
  }
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
