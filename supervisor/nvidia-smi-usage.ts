/**
 * What the node collector asks nvidia-smi every round: utilisation and memory
 * use per GPU (`--query-gpu=uuid,utilization.gpu,memory.used,memory.total`).
 * Parsing is pure and tested on recorded outputs of several driver
 * generations: GeForce boards on old drivers answer "[Not Supported]" for
 * utilisation, MIG-enabled boards "[N/A]", and a GPU that fell off the bus
 * turns its row into an error line while the others still answer.
 */
import { cell, execNvidiaSmi, type NvidiaSmiExec } from './nvidia-smi.js';

export const USAGE_FIELDS = ['uuid', 'utilization.gpu', 'memory.used', 'memory.total'] as const;

export interface GpuUsageRow {
  uuid: string;
  /** 0..1, or null when the driver does not say (and `why` says what it answered). */
  utilisation: number | null;
  memoryUsedMB: number | null;
  memoryTotalMB: number | null;
  why: string | null;
}

export interface GpuUsageParse {
  rows: GpuUsageRow[];
  warnings: string[];
}

export function usageArgs(): string[] {
  return [`--query-gpu=${USAGE_FIELDS.join(',')}`, '--format=csv,noheader,nounits'];
}

/** A number ≥ 0 (0 % and 0 MiB are real answers here), or null; a unit left in the cell ("37 %") is ignored. */
function amount(raw: string | undefined): { value: number | null; said: string | null } {
  const c = cell(raw);
  const said = raw?.trim() || null;
  if (c === null) return { value: null, said };
  const n = Number.parseFloat(c);
  return Number.isFinite(n) && n >= 0 ? { value: n, said: null } : { value: null, said };
}

export function parseGpuUsageCsv(text: string): GpuUsageParse {
  const rows: GpuUsageRow[] = [];
  const warnings: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const parts = line.split(',');
    const uuid = cell(parts[0]);
    if (parts.length !== USAGE_FIELDS.length || !uuid || !/^(GPU|MIG)-/i.test(uuid)) {
      warnings.push(`nvidia-smi usage line ignored: ${line}`);
      continue;
    }
    const util = amount(parts[1]);
    const used = amount(parts[2]);
    const total = amount(parts[3]);
    const unsaid = [util.said && `utilization.gpu ${util.said}`, used.said && `memory.used ${used.said}`].filter(Boolean);
    rows.push({
      uuid,
      utilisation: util.value === null ? null : Math.min(1, util.value / 100),
      memoryUsedMB: used.value,
      memoryTotalMB: total.value,
      why: unsaid.length > 0 ? `the driver answered ${unsaid.join(', ')}` : null,
    });
  }
  return { rows, warnings };
}

export type GpuUsageQuery = { ok: true; rows: GpuUsageRow[]; warnings: string[] } | { ok: false; why: string };

/**
 * One nvidia-smi call. A non-zero exit with rows still printed (one GPU lost,
 * the others fine) keeps the rows it could read.
 */
export async function queryGpuUsage(exec: NvidiaSmiExec = execNvidiaSmi, timeoutMs = 5000): Promise<GpuUsageQuery> {
  const r = await exec(usageArgs(), timeoutMs);
  if (r.error) return { ok: false, why: r.error };
  const parsed = parseGpuUsageCsv(r.stdout);
  if (r.code !== 0 && parsed.rows.length === 0) {
    const first = `${r.stdout}\n${r.stderr}`.trim().split(/\r?\n/)[0] ?? '';
    return { ok: false, why: `nvidia-smi failed (exit ${r.code ?? 'killed'}): ${first}` };
  }
  return { ok: true, rows: parsed.rows, warnings: parsed.warnings };
}
