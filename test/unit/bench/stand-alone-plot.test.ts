/**
 * Every benchmark plot stands alone: its title names the experiment, its
 * subtitle the machine class and the backend that ran, and legends are never
 * cut short — whatever the bench's own spec says.
 */
import assert from 'node:assert/strict';
import { backendLine, machineClass, renderSvg, standAlonePlot, type PlotSpec } from '../../../bench/support/results.js';

const plot = {
  mark: 'bar',
  encoding: { x: { field: 'k', type: 'nominal', title: 'kind' }, y: { field: 'v', type: 'quantitative', title: 'throughput (tuples/s)' }, color: { field: 'k', type: 'nominal', title: 'kind' } },
} as PlotSpec;

describe('bench plots stand alone', () => {
  it('titles the plot with the experiment, the machine class and the backend', async () => {
    const spec = standAlonePlot({ title: 'θ sweep', plot, backends: { 'matmul-gpu': 'webasm (fallback: no GPU slot)' }, quick: false }, '2 cores × Test CPU, no GPU');
    const title = (spec as { title: { text: string; subtitle: string[] } }).title;
    assert.equal(title.text, 'θ sweep');
    assert.deepEqual(title.subtitle, ['machine: 2 cores × Test CPU, no GPU', 'backend: matmul-gpu: webasm (fallback: no GPU slot)']);
    assert.equal((spec as { config: { legend: { labelLimit: number } } }).config.legend.labelLimit, 0);
    const svg = await renderSvg(spec, [{ k: 'CPU topology, 2 workers and a long label', v: 3 }]);
    for (const text of ['θ sweep', 'machine: 2 cores × Test CPU, no GPU', 'CPU topology, 2 workers and a long label']) assert.ok(svg.includes(text), `the SVG lacks "${text}"`);
  });

  it("keeps a plot's own title and moves the report's under it", () => {
    const spec = standAlonePlot({ title: 'Table 3', plot: { ...plot, title: 'Table 3: latency per tuple' } as PlotSpec, backends: {}, quick: true }, 'm');
    const title = (spec as { title: { text: string; subtitle: string[] } }).title;
    assert.equal(title.text, 'Table 3: latency per tuple');
    assert.deepEqual(title.subtitle, ['Table 3', 'machine: m', 'backend: CPU only (no GPU bolt)', 'quick mode: shortened runs']);
  });

  it('names the cores and says "no GPU" or the GPUs', () => {
    assert.match(machineClass(), /^\d+ cores × .+, (no GPU|\d+ × .+)$/);
    assert.equal(backendLine({}), 'backend: CPU only (no GPU bolt)');
  });
});
