/**
 * The soak's plot (`npm run bench -- scale --soak MIN`): nimbus's memory over
 * the window, one sample every 10 s — RSS, heap reserved, heap used (a
 * sawtooth: it is sampled between collections) and external — with the
 * 5-minute floors of RSS and of the heap after major collections drawn as
 * their own series, since those are what a leak raises.
 */
import { writeFileSync } from 'node:fs';
import { renderSvg, type PlotSpec } from './results.js';
import type { MemoryFloor, MemorySample } from './scale-soak.js';

export async function writeMemoryPlot(file: string, samples: readonly MemorySample[], floors: readonly MemoryFloor[], title: string): Promise<void> {
  const rows = [
    ...samples.flatMap((m) => [
      { minute: m.atSecs / 60, mb: Math.round(m.rssMb), series: 'RSS' },
      { minute: m.atSecs / 60, mb: Math.round(m.heapTotalMb), series: 'heap reserved' },
      { minute: m.atSecs / 60, mb: Math.round(m.heapUsedMb), series: 'heap used' },
      { minute: m.atSecs / 60, mb: Math.round(m.externalMb), series: 'external' },
    ]),
    ...floors.flatMap((f) => [
      { minute: f.minute, mb: Math.round(f.rssMb), series: 'RSS floor (5 min)' },
      { minute: f.minute, mb: Math.round(f.heapAfterGcMb), series: 'heap after major GC, floor (5 min)' },
    ]),
  ];
  const spec: PlotSpec = {
    title,
    width: 640,
    height: 300,
    mark: { type: 'line' },
    encoding: {
      x: { field: 'minute', type: 'quantitative', title: 'minutes into the soak' },
      y: { field: 'mb', type: 'quantitative', title: 'nimbus memory (MB)' },
      color: { field: 'series', type: 'nominal' },
    },
  };
  writeFileSync(file, await renderSvg(spec, rows));
}
