/** Handling of the messages ShellBolt and ShellSpout treat alike: log, metrics, and the declared streams. */
import type { TopologyContext } from '../context.js';
import type { ShellMsg } from './multilang-protocol.js';
import type { OutputFieldsDeclarer } from '../output-declarer.js';
import type { ShellComponentOptions } from './shell-runner.js';

/** storm.py / storm.js levels: 0 trace, 1 debug, 2 info (the default), 3 warn, 4 error. */
const LEVELS = ['trace', 'debug', 'info', 'warn', 'error'] as const;

export function logFromShell(ctx: TopologyContext, msg: Extract<ShellMsg, { command: 'log' }>): void {
  const level = LEVELS[Math.min(4, Math.max(0, Math.trunc(msg.level ?? 2)))] ?? 'info';
  ctx.log[level]({ multilang: true }, typeof msg.msg === 'string' ? msg.msg : JSON.stringify(msg.msg));
}

/**
 * Storm updates an IShellMetric registered by the Java side. Here the name
 * is a counter of the task (metrics v2): a numeric `params` is added to it,
 * anything else counts one.
 */
export function metricsFromShell(ctx: TopologyContext, msg: Extract<ShellMsg, { command: 'metrics' }>): void {
  const n = typeof msg.params === 'number' && Number.isFinite(msg.params) ? msg.params : 1;
  ctx.registerCounter(msg.name).inc(n);
}

export function declareShellStreams(d: OutputFieldsDeclarer, o: ShellComponentOptions): void {
  if (o.outputFields) d.declare(o.outputFields);
  for (const [stream, fields] of Object.entries(o.streams ?? {})) d.declareStream(stream, fields);
}
