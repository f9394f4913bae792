/**
 * Asking nvidia-smi about the node's GPUs. The parsing is pure (tested on
 * recorded outputs); `queryNvidiaSmi` runs the binary with a timeout and, when
 * an old driver rejects a field ("Field "compute_cap" is not a valid field to
 * query."), asks again without it — the caller then fills the gap from the
 * model table.
 */
import { execFile } from 'node:child_process';

export const NVIDIA_SMI_FIELDS = ['uuid', 'name', 'memory.total', 'clocks.max.sm', 'compute_cap', 'pci.bus_id'] as const;
export type NvidiaSmiField = (typeof NVIDIA_SMI_FIELDS)[number];
/** Without these a row is useless: GPUs are keyed by uuid and modelled by name. */
const REQUIRED: readonly NvidiaSmiField[] = ['uuid', 'name'];

export interface NvidiaSmiRow {
  /** Position in nvidia-smi's output: the device index CUDA and NVML use. */
  index: number;
  uuid: string;
  name: string;
  memoryMB: number | null;
  clockMHz: number | null;
  computeCapability: string | null;
  pciBusId: string | null;
}

export interface NvidiaSmiParse {
  rows: NvidiaSmiRow[];
  /** Lines that could not be read, and why. */
  warnings: string[];
}

export function nvidiaSmiArgs(fields: readonly NvidiaSmiField[]): string[] {
  return [`--query-gpu=${fields.join(',')}`, '--format=csv,noheader,nounits'];
}

/** The field an old driver refused, from its message; null when the output says nothing of the kind. */
export function rejectedField(output: string): string | null {
  const m = /Field "([^"]+)" is not a valid field to query/i.exec(output);
  return m ? m[1]! : null;
}

/** "[N/A]", "N/A", "[Not Supported]", "[Unknown Error]" and empty cells are unknown values. */
export function cell(v: string | undefined): string | null {
  if (v === undefined) return null;
  const t = v.trim().replace(/^"(.*)"$/, '$1').trim();
  if (!t || /^\[.*\]$/.test(t) || /^n\/a$/i.test(t)) return null;
  return t;
}

function num(v: string | null): number | null {
  if (v === null) return null;
  // parseFloat stops at a unit, should one be there ("80 MiB" without nounits).
  const n = Number.parseFloat(v);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/**
 * Parses `--format=csv,noheader,nounits` output for the given fields. nvidia-smi
 * does not quote, so a comma inside a name would shift the columns: extra
 * columns are folded back into the name, the one free-text field.
 */
export function parseNvidiaSmiCsv(text: string, fields: readonly NvidiaSmiField[]): NvidiaSmiParse {
  const rows: NvidiaSmiRow[] = [];
  const warnings: string[] = [];
  const nameAt = fields.indexOf('name');
  let index = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    let parts = line.split(',');
    if (parts.length > fields.length && nameAt >= 0) {
      const extra = parts.length - fields.length;
      parts = [...parts.slice(0, nameAt), parts.slice(nameAt, nameAt + extra + 1).join(','), ...parts.slice(nameAt + extra + 1)];
    }
    if (parts.length !== fields.length) {
      warnings.push(`nvidia-smi line with ${parts.length} columns instead of ${fields.length} ignored: ${line}`);
      continue;
    }
    const get = (f: NvidiaSmiField): string | null => {
      const i = fields.indexOf(f);
      return i < 0 ? null : cell(parts[i]);
    };
    const uuid = get('uuid');
    const name = get('name');
    if (!uuid || !name) {
      warnings.push(`nvidia-smi line without ${uuid ? 'name' : 'uuid'} ignored: ${line}`);
      continue;
    }
    const cc = get('compute_cap');
    rows.push({
      index: index++,
      uuid,
      name,
      memoryMB: num(get('memory.total')),
      clockMHz: num(get('clocks.max.sm')),
      computeCapability: cc && /^\d+\.\d+$/.test(cc) ? cc : null,
      pciBusId: get('pci.bus_id'),
    });
  }
  return { rows, warnings };
}

export interface ExecResult {
  /** Exit code; null when the process could not start or was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when it could not run at all (e.g. ENOENT) or timed out. */
  error?: string;
}

export type NvidiaSmiExec = (args: string[], timeoutMs: number) => Promise<ExecResult>;

export const execNvidiaSmi: NvidiaSmiExec = (args, timeoutMs) =>
  new Promise((resolve) => {
    execFile('nvidia-smi', args, { timeout: timeoutMs, killSignal: 'SIGKILL', windowsHide: true }, (err, stdout, stderr) => {
      if (!err) return resolve({ code: 0, stdout, stderr });
      const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
      const code = typeof e.code === 'number' ? e.code : null;
      const why =
        e.code === 'ENOENT' ? 'nvidia-smi is not installed (not on PATH)' : e.killed ? `nvidia-smi did not answer within ${timeoutMs} ms` : undefined;
      resolve({ code, stdout: String(stdout ?? ''), stderr: String(stderr ?? ''), ...(why ? { error: why } : {}) });
    });
  });

export type NvidiaSmiQuery =
  | { ok: true; rows: NvidiaSmiRow[]; fields: NvidiaSmiField[]; notes: string[] }
  | { ok: false; why: string };

/** Runs nvidia-smi, dropping fields the driver rejects, and parses what it prints. */
export async function queryNvidiaSmi(exec: NvidiaSmiExec = execNvidiaSmi, timeoutMs = 10_000): Promise<NvidiaSmiQuery> {
  let fields: NvidiaSmiField[] = [...NVIDIA_SMI_FIELDS];
  const notes: string[] = [];
  for (;;) {
    const r = await exec(nvidiaSmiArgs(fields), timeoutMs);
    if (r.error) return { ok: false, why: r.error };
    const out = `${r.stdout}\n${r.stderr}`;
    const bad = rejectedField(out);
    if (bad !== null) {
      const f = fields.find((x) => x === bad);
      if (!f || REQUIRED.includes(f)) return { ok: false, why: `nvidia-smi rejects the field "${bad}"` };
      fields = fields.filter((x) => x !== f);
      notes.push(`this driver's nvidia-smi does not know "${bad}"; asked again without it`);
      continue;
    }
    if (r.code !== 0) {
      const first = out.trim().split(/\r?\n/)[0] ?? '';
      return { ok: false, why: `nvidia-smi failed (exit ${r.code ?? 'killed'}): ${first}` };
    }
    const parsed = parseNvidiaSmiCsv(r.stdout, fields);
    return { ok: true, rows: parsed.rows, fields, notes: [...notes, ...parsed.warnings] };
  }
}
