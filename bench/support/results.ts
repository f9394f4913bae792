/**
 * What every paper experiment writes to bench-results/<experiment>/:
 * a CSV of its rows, an SVG plot rendered by Vega-Lite (a plotting library,
 * not hand-drawn), and a markdown summary stating the machine, the backend
 * that actually ran each GPU bolt, and the ratios.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, hostname, platform, release } from 'node:os';
import { join } from 'node:path';
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

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

export function machineDescription(): string {
  const c = cpus();
  return `${hostname()} — ${c.length} × ${c[0]?.model ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, ${platform()} ${release()}, Node ${process.version}`;
}

function csv(rows: Row[]): string {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [cols.join(','), ...rows.map((r) => cols.map((c) => cell(r[c])).join(','))].join('\n') + '\n';
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
    `- machine: ${machineDescription()}`,
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
  writeFileSync(join(dir, `${r.experiment}.csv`), csv(r.rows));
  writeFileSync(join(dir, `${r.experiment}.svg`), await renderSvg(r.plot, r.rows));
  writeFileSync(join(dir, 'summary.md'), markdown(r, when));
  return dir;
}
