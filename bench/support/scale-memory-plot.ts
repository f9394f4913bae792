/**
 * The soak's plot (`npm run bench -- scale --soak MIN`): nimbus's heap used and
 * RSS over the window, one sample every 30 s, so "is it flat?" is read at a
 * glance. Heap used is a sawtooth (it is sampled between collections); its
 * lower edge, what survives a collection, is what would grow with a leak.
 */
import { writeFileSync } from 'node:fs';
import { renderSvg, type PlotSpec } from './results.js';

export interface MemorySample {
  atSecs: number;
  rssMb: number;
  heapMb: number;
}

export async function writeMemoryPlot(file: string, samples: readonly MemorySample[], title: string): Promise<void> {
  const rows = samples.flatMap((m) => [
    { minute: m.atSecs / 60, mb: Math.round(m.rssMb), series: 'RSS' },
    { minute: m.atSecs / 60, mb: Math.round(m.heapMb), series: 'heap used' },
  ]);
  const spec: PlotSpec = {
    title,
    width: 640,
    height: 280,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'minute', type: 'quantitative', title: 'minutes into the soak' },
      y: { field: 'mb', type: 'quantitative', title: 'nimbus memory (MB)' },
      color: { field: 'series', type: 'nominal' },
    },
  };
  writeFileSync(file, await renderSvg(spec, rows));
}
