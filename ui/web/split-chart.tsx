/**
 * γ, δ and the CPU/GPU latencies of the split spouts over time, drawn by
 * Vega-Lite through vega-embed (SVG). The chart is embedded once; each
 * refresh only replaces its data, so it updates in place.
 */
import embed, { type Result } from 'vega-embed';
import type { TopLevelSpec } from 'vega-lite';
import { useEffect, useRef } from 'preact/hooks';

export interface SplitPoint {
  time: number;
  component: string;
  task: number;
  gamma: number;
  delta: number | null;
  latCpuMs: number | null;
  latGpuMs: number | null;
}

interface Row {
  time: number;
  task: string;
  series: string;
  value: number;
}

/** One row per point and series: γ and δ share a [0, 1] axis, the latencies get their own. */
export function rowsOf(points: readonly SplitPoint[]): { share: Row[]; latency: Row[] } {
  const share: Row[] = [];
  const latency: Row[] = [];
  for (const p of points) {
    const task = `${p.component}#${p.task}`;
    share.push({ time: p.time, task, series: 'γ (GPU share)', value: p.gamma });
    if (p.delta !== null) share.push({ time: p.time, task, series: 'δ (GPU speed share)', value: p.delta });
    if (p.latCpuMs !== null) latency.push({ time: p.time, task, series: 'CPU complete latency', value: p.latCpuMs });
    if (p.latGpuMs !== null) latency.push({ time: p.time, task, series: 'GPU complete latency', value: p.latGpuMs });
  }
  return { share, latency };
}

const spec: TopLevelSpec = {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  vconcat: [
    {
      width: 640,
      height: 160,
      data: { name: 'share' },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'time', type: 'temporal', title: null, axis: { format: '%H:%M:%S', labelOverlap: true } },
        y: { field: 'value', type: 'quantitative', scale: { domain: [0, 1] }, title: 'γ, δ' },
        color: { field: 'series', type: 'nominal', title: null },
        detail: { field: 'task', type: 'nominal' },
        tooltip: [{ field: 'series' }, { field: 'task' }, { field: 'value', format: '.3f' }, { field: 'time', type: 'temporal', timeUnit: 'hoursminutesseconds' }],
      },
    },
    {
      width: 640,
      height: 140,
      data: { name: 'latency' },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'time', type: 'temporal', title: null, axis: { format: '%H:%M:%S', labelOverlap: true } },
        y: { field: 'value', type: 'quantitative', title: 'latency (ms)' },
        color: { field: 'series', type: 'nominal', title: null },
        detail: { field: 'task', type: 'nominal' },
        tooltip: [{ field: 'series' }, { field: 'task' }, { field: 'value', format: '.1f' }],
      },
    },
  ],
  resolve: { scale: { color: 'independent' } },
  config: { legend: { orient: 'bottom', direction: 'horizontal' } },
};

export function SplitChart({ points }: { points: readonly SplitPoint[] }) {
  const el = useRef<HTMLDivElement>(null);
  const view = useRef<Result | null>(null);
  const latest = useRef(points);
  latest.current = points;

  useEffect(() => {
    let live = true;
    if (!el.current) return;
    // ast: Vega's expressions run in its interpreter, not through new Function: the page's CSP allows no eval (ui/web-ui.ts).
    void embed(el.current, spec, { actions: false, renderer: 'svg', ast: true }).then((r) => {
      if (!live) return r.finalize();
      view.current = r;
      return update(r, latest.current);
    });
    return () => {
      live = false;
      view.current?.finalize();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    if (view.current) void update(view.current, points);
  }, [points]);

  return <div id="split-chart" data-testid="split-chart" data-points={points.length} ref={el} />;
}

async function update(r: Result, points: readonly SplitPoint[]): Promise<void> {
  const { share, latency } = rowsOf(points);
  // resize(): the legends and axes appear with the first data, and the SVG must grow to hold them.
  await r.view.data('share', share).data('latency', latency).resize().runAsync();
}
