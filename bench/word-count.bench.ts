/**
 * `npm run bench -- word-count`: the word-count example (sentences → split →
 * count, fields grouping, acked) across 2 worker processes for 30 s (8 s with
 * --quick); prints words counted per second and sentences acked per second in
 * steady state, the complete latency p50/p99, failed tuples, CPU µs per word of
 * each worker process and the load average. A regression on a real topology
 * (three hops, fields grouping, anchored emits) shows up here, not only on the
 * transport benchmark's spout → bolt pair.
 */
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { runLocal, PACKAGE_ROOT } from '../cli/local-run.js';
import type { BenchArgs } from './main.js';
import { BenchProgress } from './support/progress.js';
import { cpuPerUnit, sampleChildCpu } from './support/child-cpu.js';

const WORD_COUNT = join(PACKAGE_ROOT, 'dist', 'examples', 'word-count', 'index.js');

export async function run(args: BenchArgs): Promise<void> {
  const seconds = args.quick ? 8 : 30;
  const bar = new BenchProgress('word-count', 1, !args.json);
  bar.step('word count, 2 workers, acked');
  const samples: { t: number; words: number; acked: number; cpu: Map<number, number> | null }[] = [];
  const summary = await runLocal({
    module: WORD_COUNT,
    name: 'word-count-bench',
    durationSec: seconds,
    overrides: { 'topology.workers': 2 },
    clusterConfig: { 'nimbus.scheduler': 'even' },
    onProgress: (s, t) => samples.push({ t, words: s.components.count?.executed ?? 0, acked: s.acked, cpu: sampleChildCpu() }),
    drainSec: 3,
  });
  bar.stop();
  const warm = samples.find((s) => s.t >= 2 && s.words > 0) ?? samples[0];
  const last = samples[samples.length - 1];
  const span = warm && last && last.t > warm.t ? last.t - warm.t : 0;
  const result = {
    seconds,
    wordsPerSec: span > 0 ? Math.round((last!.words - warm!.words) / span) : 0,
    sentencesAckedPerSec: span > 0 ? Math.round((last!.acked - warm!.acked) / span) : 0,
    latencyMs: { p50: summary.completeLatencyMs.p50, p99: summary.completeLatencyMs.p99 },
    failed: summary.failed,
    cpuUsPerWord: warm && last ? cpuPerUnit(warm.cpu, last.cpu, last.words - warm.words) : null,
    loadavg: loadavg().map((x) => Math.round(x * 10) / 10),
  };
  if (args.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  process.stdout.write(
    [
      `word count (2 worker processes, acked, ${seconds} s; load average ${result.loadavg.join(' / ')})`,
      `  ${result.wordsPerSec.toLocaleString()} words/s, ${result.sentencesAckedPerSec.toLocaleString()} sentences acked/s, failed ${result.failed}`,
      `  complete latency p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms`,
      `  CPU per word (µs per worker process, busiest first): ${result.cpuUsPerWord?.join(' / ') ?? '–'}`,
    ].join('\n') + '\n',
  );
}
