/**
 * What a run of scripts/device-gpu-checks.sh found, read back from its $OUT:
 * every benchmark's JSON present and whole, the WebGPU adapter they ran on —
 * called a GPU only when it is one, a software adapter (lavapipe, SwiftShader)
 * named as a CPU behind WebGPU — and any row that contradicts that (a software
 * or CPU run flagged as a GPU, a "webgpu" label without "software" when the
 * only adapter was a software one). Where nvidia-smi listed a GPU that WebGPU
 * did not reach, that is a problem too: the first run on a GPU machine should
 * say so loudly rather than report CPU numbers.
 */
import { isSoftwareAdapter, webgpuLabel, type WebGpuAdapterInfo } from '../../common/webgpu-adapter.js';

/** The benchmarks device-gpu-checks.sh runs, each into `<name>.json`. */
export const DEVICE_BENCHES = ['gpu-bolt', 'bolt-latency', 'hybrid-vs-single', 'windows'] as const;

export interface DeviceOutputs {
  /** `<bench>.json`'s text per benchmark; null when the file is missing. */
  json: Record<string, string | null>;
  /** machine.txt, which scripts/device-first-run.sh begins with nvidia-smi -L; null when absent. */
  machine: string | null;
}

export interface DeviceSummary {
  lines: string[];
  /** Each makes the run a failure: a result missing, or a software adapter or CPU shown as a GPU. */
  problems: string[];
  /** The GPU WebGPU ran on, or null (no adapter, or a software one). */
  gpu: string | null;
}

/** Row fields that name what ran: `backend` (gpu-bolt, bolt-latency, windows), the dealers (hybrid-vs-single). */
const BACKEND_FIELDS = ['backend', 'gpuDealer', 'cpuDealer'] as const;
/** Checked too, not listed: windows' `series` repeats the backend inside a longer name. */
const LABEL_FIELDS = [...BACKEND_FIELDS, 'series'] as const;
/** A label that says "not a GPU": a software adapter or a CPU backend. */
const NOT_GPU = /software|webgpu-sw|llvmpipe|lavapipe|swiftshader|^(webasm|cpu|js)\b|CPU backend|CPU bolt/i;

type Row = Record<string, unknown>;

export function summarizeDeviceResults(outputs: DeviceOutputs): DeviceSummary {
  const lines: string[] = [];
  const problems: string[] = [];
  const parsed = new Map<string, { rows: Row[]; doc: Record<string, unknown> }>();
  for (const bench of DEVICE_BENCHES) {
    const doc = parseLastLine(outputs.json[bench] ?? null);
    if (typeof doc === 'string') problems.push(`${bench}.json: ${doc}`);
    else if (doc.bench !== bench) problems.push(`${bench}.json: holds ${JSON.stringify(doc.bench)}, not ${bench}`);
    else parsed.set(bench, { doc, rows: Array.isArray(doc.rows) ? (doc.rows as Row[]) : [] });
  }

  const adapter = adapterOf(parsed.get('gpu-bolt')?.doc);
  const gpu = adapter && !adapter.software ? webgpuLabel(adapter) : null;
  if (adapter === undefined) lines.push('WebGPU adapter: unknown (gpu-bolt.json missing)');
  else if (adapter === null) lines.push(`WebGPU adapter: none — ${String(parsed.get('gpu-bolt')?.doc.webgpuUnavailable ?? 'no reason given')}`);
  else if (adapter.software) lines.push(`WebGPU adapter: ${webgpuLabel(adapter)} — a CPU behind WebGPU, NOT a GPU`);
  else lines.push(`WebGPU adapter: ${webgpuLabel(adapter)} — GPU${adapter.identity ? `, board ${adapter.identity}` : ''}`);

  const listed = nvidiaGpus(outputs.machine);
  if (outputs.machine !== null) lines.push(`nvidia-smi: ${listed.length ? listed.join('; ') : 'no NVIDIA GPU listed'}`);
  if (listed.length && !gpu)
    problems.push(`nvidia-smi lists ${listed.join('; ')} but WebGPU did not run on it: the NVIDIA Vulkan ICD was not used (see machine.txt)`);

  for (const [bench, { rows }] of parsed) {
    const ran = new Set<string>();
    rows.forEach((row, i) => {
      const named = (fields: readonly string[]) => fields.map((f) => row[f]).filter((v): v is string => typeof v === 'string' && v !== '');
      named(BACKEND_FIELDS).forEach((l) => ran.add(l));
      const labels = named(LABEL_FIELDS);
      const where = `${bench}.json row ${i + 1} (${labels.join(' / ') || 'no label'})`;
      if (row.hardwareGpu === true && labels.some((l) => NOT_GPU.test(l))) problems.push(`${where}: a software adapter or CPU backend flagged as a GPU`);
      if (!gpu && labels.some((l) => /webgpu/i.test(l) && !NOT_GPU.test(l))) problems.push(`${where}: labelled webgpu without "software", but no GPU adapter ran`);
    });
    lines.push(`${bench}: ${rows.length} rows; ran on: ${[...ran].join(', ') || 'nothing named'}`);
  }

  if (problems.length) lines.push(`verdict: FAILED — ${problems.length} problem(s)`);
  else if (gpu) lines.push(`verdict: the GPU checks ran on a GPU (${gpu})`);
  else lines.push(`verdict: the checks ran, on no GPU${adapter ? ` (WebGPU on a software adapter: its numbers are CPU numbers)` : ''}`);
  return { lines, problems, gpu };
}

/** A benchmark's `--json` output: its last line is the result (progress may come before). A string says what is wrong. */
function parseLastLine(text: string | null): Record<string, unknown> | string {
  if (text === null) return 'missing';
  const last = text.trim().split('\n').pop() ?? '';
  if (!last) return 'empty (the benchmark failed: see log.txt)';
  try {
    const doc: unknown = JSON.parse(last);
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : `not a result object: ${last.slice(0, 80)}`;
  } catch {
    return `not JSON: ${last.slice(0, 80)}`;
  }
}

/** gpu-bolt's `webgpu`: the adapter report, null when none answered, undefined when there is no gpu-bolt result. */
function adapterOf(doc: Record<string, unknown> | undefined): (WebGpuAdapterInfo & { software: boolean; identity?: string }) | null | undefined {
  if (!doc) return undefined;
  const a = doc.webgpu as Partial<WebGpuAdapterInfo & { software: unknown; identity: unknown }> | null | undefined;
  if (!a) return null;
  const info: WebGpuAdapterInfo = { vendor: str(a.vendor), architecture: str(a.architecture), device: str(a.device), description: str(a.description) };
  // Trust a `software: false` only when the strings agree: a report that lost the flag is treated by its name.
  const software = a.software === true || isSoftwareAdapter(info);
  return { ...info, software, ...(typeof a.identity === 'string' && { identity: a.identity }) };
}

/** "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-…)" lines of nvidia-smi -L, as model names. */
function nvidiaGpus(machine: string | null): string[] {
  return [...(machine ?? '').matchAll(/^GPU \d+: (.+?) \(UUID/gm)].map((m) => m[1]!);
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
