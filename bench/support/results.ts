/**
 * What every paper experiment writes to bench-results/<experiment>/:
 * a CSV of its rows, an SVG plot rendered by Vega-Lite (a plotting library,
 * not hand-drawn), and a markdown summary stating the machine, the backend
 * that actually ran each GPU bolt, and the ratios.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cpus, totalmem, hostname, platform, release } from 'node:os';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { toCsv } from './csv.js';

export type Row = Record<string, string | number | boolean | null>;

/** Omit over each member of a union (a plain Omit keeps only the keys all members share, losing vconcat and friends). */
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A Vega-Lite spec without top-level data: writeReport injects the rows (layered or concatenated panels may carry their own). */
export type PlotSpec = DistributiveOmit<TopLevelSpec, 'data'>;

export interface ExperimentReport {
  experiment: string;
  title: string;
  /** The command that reproduces it. */
  command: string;
  rows: Row[];
  /** Vega-Lite spec without data (rows are injected). */
  plot: PlotSpec;
  /** Backend that actually ran each GPU bolt, e.g. { 'matmul-gpu': 'webasm (fallback: no GPU slot)' }. */
  backends: Record<string, string>;
  /** Headline ratios, e.g. { 'speed-up at 512²': 3.2 }. */
  ratios: Record<string, number | string>;
  /** Free text: what differs from the paper's setup, caveats. */
  notes: string[];
  quick: boolean;
}

/**
 * What a reader of a plot needs to know about the machine, from the run's own
 * environment: cores and CPU model, and the GPUs nvidia-smi lists ("no GPU"
 * when it lists none or is not installed).
 */
export function machineClass(): string {
  const c = cpus();
  return `${c.length} cores × ${c[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU'}, ${gpuNames() ?? 'no GPU'}`;
}

let gpuCache: string | null | undefined;
function gpuNames(): string | null {
  if (gpuCache !== undefined) return gpuCache;
  try {
    const names = execFileSync('nvidia-smi', ['--query-gpu=name', '--format=csv,noheader'], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const counts = new Map<string, number>();
    for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
    gpuCache = names.length ? [...counts].map(([n, k]) => `${k} × ${n}`).join(', ') : null;
  } catch {
    gpuCache = null;
  }
  return gpuCache;
}

/** The backend line of a plot's subtitle: what actually ran each GPU bolt, or that none ran. */
export function backendLine(backends: Record<string, string>): string {
  const e = Object.entries(backends);
  return e.length ? `backend: ${e.map(([k, v]) => `${k}: ${v}`).join('; ')}` : 'backend: CPU only (no GPU bolt)';
}

/**
 * The plot as it is written: titled with the experiment (the plot's own
 * title when it has one, else the report's), and subtitled with the machine
 * class and the backend that ran, so a plot copied out of its folder still
 * says what it shows; legend labels and titles are never cut short.
 */
export function standAlonePlot(r: Pick<ExperimentReport, 'title' | 'plot' | 'backends' | 'quick'>, machine = machineClass()): PlotSpec {
  const own = (r.plot as { title?: unknown }).title;
  const text = typeof own === 'string' ? own : r.title;
  const subtitle = [...(typeof own === 'string' && own !== r.title ? [r.title] : []), `machine: ${machine}`, backendLine(r.backends), ...(r.quick ? ['quick mode: shortened runs'] : [])];
  const config = (r.plot as { config?: Record<string, unknown> }).config ?? {};
  return {
    ...r.plot,
    title: { text, subtitle, anchor: 'start', fontSize: 14, subtitleFontSize: 11 },
    config: {
      ...config,
      legend: { labelLimit: 0, titleLimit: 0, ...(config.legend as object | undefined) },
    },
  } as PlotSpec;
}

export function machineDescription(): string {
  const c = cpus();
  return `${hostname()} — ${c.length} × ${c[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${release()}, Node ${process.version}`;
}

export async function renderSvg(spec: PlotSpec, rows: Row[]): Promise<string> {
  const full = { ...spec, data: { values: rows } } as TopLevelSpec;
  const view = new vega.View(vega.parse(compile(full).spec), { renderer: 'none' });
  return view.toSVG();
}

function markdown(r: ExperimentReport, when: string): string {
  const cols = [...new Set(r.rows.flatMap((x) => Object.keys(x)))];
  const table = [
    `| ${cols.join(' | ')} |`,
    `| ${cols.map(() => '---').join(' | ')} |`,
    ...r.rows.map((x) => `| ${cols.map((c) => String(x[c] ?? '')).join(' | ')} |`),
  ];
  return [
    `# ${r.title}`,
    '',
    `- date: ${when}`,
    `- machine: ${machineDescription()} (${machineClass()})`,
    `- command: \`${r.command}\`${r.quick ? ' (quick mode: shortened runs for smoke use)' : ''}`,
    `- backends that actually ran: ${Object.entries(r.backends).map(([k, v]) => `${k}: ${v}`).join('; ') || 'no GPU bolt'}`,
    '',
    '## Ratios',
    '',
    ...Object.entries(r.ratios).map(([k, v]) => `- ${k}: ${v}`),
    '',
    `![${r.experiment}](${r.experiment}.svg)`,
    '',
    '## Data',
    '',
    ...table,
    '',
    ...(r.notes.length ? ['## Notes', '', ...r.notes.map((n) => `- ${n}`), ''] : []),
  ].join('\n');
}

/** Writes CSV, SVG and summary; returns the folder. */
export async function writeReport(r: ExperimentReport, root = 'bench-results'): Promise<string> {
  const dir = join(root, r.experiment);
  mkdirSync(dir, { recursive: true });
  const when = new Date().toISOString();
  writeFileSync(join(dir, `${r.experiment}.csv`), toCsv(r.rows));
  writeFileSync(join(dir, `${r.experiment}.svg`), await renderSvg(standAlonePlot(r), r.rows));
  writeFileSync(join(dir, 'summary.md'), markdown(r, when));
  return dir;
}
