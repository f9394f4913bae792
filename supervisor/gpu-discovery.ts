/**
 * Which GPUs this supervisor offers (DESIGN §4). `supervisor.gpu.discovery`:
 * - `auto`: nvidia-smi, then a WebGPU adapter, then GPUs declared in config —
 *   the first source that yields a GPU wins;
 * - `nvidia-smi` | `webgpu` | `declared`: only that source;
 * - `none`: no GPUs.
 * Whatever a source cannot tell (SM count, compute capability on old drivers,
 * clock and memory over WebGPU) comes from the model table or a labelled
 * default, and each guess is written into `notes` for the supervisor's log.
 * Slots follow the quantization rules in gpu-slots.ts.
 */
import type { Config, DeclaredGpu } from '../common/config/index.js';
import type { GpuInfo, GpuSource } from '../common/resources.js';
import { coresPerSmFor, lookupGpuModel, smCountFor } from '../common/gpu-sm-table.js';
import { gpuSlotLimit } from '../common/gpu-slots.js';
import { queryNvidiaSmi, type NvidiaSmiQuery, type NvidiaSmiRow } from './nvidia-smi.js';
import { probeWebGpu, type WebGpuProbe } from './webgpu-probe.js';
import { adapterName, type WebGpuAdapterInfo } from '../common/webgpu-adapter.js';

/** The keys discovery reads, typed by their schemas. */
export type GpuDiscoveryConfig = Pick<
  Config,
  'supervisor.gpu.discovery' | 'supervisor.gpus' | 'supervisor.gpu.slots' | 'supervisor.gpu.mps.max.clients' | 'supervisor.gpu.sm.counts' | 'supervisor.gpu.memory.mb'
>;

/** The discovery keys of a validated `Config`. */
export function gpuDiscoveryConfig(c: Config): GpuDiscoveryConfig {
  return {
    'supervisor.gpu.discovery': c['supervisor.gpu.discovery'],
    'supervisor.gpus': c['supervisor.gpus'],
    'supervisor.gpu.slots': c['supervisor.gpu.slots'],
    'supervisor.gpu.mps.max.clients': c['supervisor.gpu.mps.max.clients'],
    'supervisor.gpu.sm.counts': c['supervisor.gpu.sm.counts'],
    'supervisor.gpu.memory.mb': c['supervisor.gpu.memory.mb'],
  };
}

export interface GpuDiscovery {
  gpus: GpuInfo[];
  /** Where they came from; null when none were found. */
  source: GpuSource | null;
  /** What was tried, what failed and which values are guesses: for the log. */
  notes: string[];
}

/** Seams for tests: the real ones run nvidia-smi and the WebGPU probe. */
export interface GpuDiscoveryDeps {
  nvidiaSmi: () => Promise<NvidiaSmiQuery>;
  webgpu: () => Promise<WebGpuProbe>;
}

const REAL_DEPS: GpuDiscoveryDeps = { nvidiaSmi: () => queryNvidiaSmi(), webgpu: () => probeWebGpu() };

/** Written where the compute capability could not be learnt. */
export const UNKNOWN_CC = 'unknown';
/** Clock assumed when a source reports none: only relative performance matters to the scheduler. */
const DEFAULT_CLOCK_MHZ = 1000;

export async function discoverGpus(cfg: GpuDiscoveryConfig, deps: GpuDiscoveryDeps = REAL_DEPS): Promise<GpuDiscovery> {
  const mode = cfg['supervisor.gpu.discovery'];
  const notes: string[] = [];
  if (mode === 'none') return { gpus: [], source: null, notes: ['GPU discovery is off (supervisor.gpu.discovery=none)'] };

  if (mode === 'auto' || mode === 'nvidia-smi') {
    const q = await deps.nvidiaSmi();
    if (q.ok && q.rows.length) {
      notes.push(...q.notes);
      return { gpus: q.rows.map((r) => fromNvidiaSmi(r, cfg, notes)), source: 'nvidia-smi', notes };
    }
    notes.push(q.ok ? 'nvidia-smi lists no GPU' : q.why);
    if (mode === 'nvidia-smi') return { gpus: [], source: null, notes };
  }
  if (mode === 'auto' || mode === 'webgpu') {
    const p = await deps.webgpu();
    if (p.ok) return { gpus: [fromWebGpu(p.adapter, cfg, notes)], source: 'webgpu', notes };
    notes.push(`WebGPU: ${p.why}`);
    if (mode === 'webgpu') return { gpus: [], source: null, notes };
  }
  const declared = cfg['supervisor.gpus'];
  if (!declared.length) {
    notes.push('no GPU declared in supervisor.gpus');
    return { gpus: [], source: null, notes };
  }
  notes.push(`using ${declared.length} GPU(s) declared in supervisor.gpus: kernels run on a CPU backend`);
  return { gpus: declared.map((d, i) => fromDeclared(d, i, cfg, notes)), source: 'declared', notes };
}

/** `supervisor.gpu.memory.mb` for a GPU that reports no memory, else 0 (unknown: shared by slots only). */
function assumedMemory(cfg: GpuDiscoveryConfig, label: string, notes: string[]): number {
  const mb = cfg['supervisor.gpu.memory.mb'];
  notes.push(
    mb !== null
      ? `${label}: memory not reported; ${mb} MB from supervisor.gpu.memory.mb`
      : `${label}: memory not reported (0 = unknown: GPU memory is not checked on it; set supervisor.gpu.memory.mb)`,
  );
  return mb ?? 0;
}

function slotsFor(cc: string, requested: number, cfg: GpuDiscoveryConfig, label: string, notes: string[]): number {
  const lim = gpuSlotLimit(cc, requested, cfg['supervisor.gpu.mps.max.clients']);
  if (lim.limitedBy) notes.push(`${label}: ${lim.slots} slot(s): ${lim.limitedBy}`);
  return lim.slots;
}

function cores(cc: string, label: string, notes: string[]): number {
  const c = coresPerSmFor(cc);
  if (!c.known) notes.push(`${label}: cores per SM unknown for compute capability ${cc}; assuming ${c.cores}`);
  return c.cores;
}

function smCount(name: string, cfg: GpuDiscoveryConfig, label: string, notes: string[]): number {
  const sm = smCountFor(name, cfg['supervisor.gpu.sm.counts']);
  if (sm !== undefined) return sm;
  notes.push(`${label}: SM count unknown for "${name}"; assuming 1 — set supervisor.gpu.sm.counts."${name}"`);
  return 1;
}

export function fromNvidiaSmi(r: NvidiaSmiRow, cfg: GpuDiscoveryConfig, notes: string[]): GpuInfo {
  const label = `GPU ${r.index} (${r.name})`;
  let cc = r.computeCapability;
  if (cc === null) {
    cc = lookupGpuModel(r.name)?.computeCapability ?? UNKNOWN_CC;
    notes.push(`${label}: compute capability ${cc === UNKNOWN_CC ? 'unknown' : `${cc} taken from the model table`}`);
  }
  if (r.clockMHz === null) notes.push(`${label}: max SM clock not reported; assuming ${DEFAULT_CLOCK_MHZ} MHz`);
  const memoryMB = r.memoryMB ?? assumedMemory(cfg, label, notes);
  const gpu: GpuInfo = {
    id: r.uuid,
    name: r.name,
    smCount: smCount(r.name, cfg, label, notes),
    coresPerSm: cores(cc, label, notes),
    clockMHz: r.clockMHz ?? DEFAULT_CLOCK_MHZ,
    memoryMB,
    computeCapability: cc,
    slots: slotsFor(cc, cfg['supervisor.gpu.slots'], cfg, label, notes),
    source: 'nvidia-smi',
    index: r.index,
  };
  if (r.pciBusId !== null) gpu.pciBusId = r.pciBusId;
  return gpu;
}

export function fromWebGpu(a: WebGpuAdapterInfo, cfg: GpuDiscoveryConfig, notes: string[]): GpuInfo {
  // Dawn's `device` is the model (what the worker's adapter filter matches); `description` is the driver.
  const name = adapterName(a);
  const label = `WebGPU adapter (${name})`;
  const model = lookupGpuModel(name);
  const cc = model?.computeCapability ?? UNKNOWN_CC;
  notes.push(
    `${label}: WebGPU reports no SM count, clock or memory; ` +
      (model ? `SM count and compute capability from the model table, ` : '') +
      `clock assumed ${DEFAULT_CLOCK_MHZ} MHz`,
  );
  const memoryMB = assumedMemory(cfg, label, notes);
  return {
    id: name,
    name,
    smCount: smCount(name, cfg, label, notes),
    coresPerSm: cores(cc, label, notes),
    clockMHz: DEFAULT_CLOCK_MHZ,
    memoryMB,
    computeCapability: cc,
    slots: slotsFor(cc, cfg['supervisor.gpu.slots'], cfg, label, notes),
    source: 'webgpu',
    index: 0,
  };
}

export function fromDeclared(
  d: DeclaredGpu,
  index: number,
  cfg: GpuDiscoveryConfig,
  notes: string[],
): GpuInfo {
  const label = `declared GPU ${d.id} (${d.name})`;
  return {
    id: d.id,
    name: d.name,
    smCount: d.smCount,
    coresPerSm: d.coresPerSm ?? cores(d.computeCapability, label, notes),
    clockMHz: d.clockMHz,
    memoryMB: d.memoryMB,
    computeCapability: d.computeCapability,
    slots: slotsFor(d.computeCapability, d.slots ?? cfg['supervisor.gpu.slots'], cfg, label, notes),
    source: 'declared',
    index,
  };
}
