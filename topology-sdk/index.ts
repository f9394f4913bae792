/**
 * hstorm topology SDK — everything a topology author imports, and nothing
 * daemon-specific (no ZooKeeper, ZeroMQ or pino at run time).
 *
 * @example
 * import { TopologyBuilder, Spout, BasicBolt } from 'hstorm';
 * export default () => {
 *   const b = new TopologyBuilder();
 *   b.setSpout('sentences', () => new SentenceSpout(), 1);
 *   b.setBolt('split', () => new SplitBolt(), 2).shuffleGrouping('sentences');
 *   return b.createTopology({ 'topology.workers': 2 });
 * };
 */
export { TopologyBuilder, StormTopology, BoltDeclarer, SpoutDeclarer } from './topology-builder.js';
export { Spout, Bolt, BasicBolt } from './components.js';
export type {
  Values,
  EmitOptions,
  SpoutOutputCollector,
  OutputCollector,
  BasicOutputCollector,
  Conf,
  SpoutFactory,
  BoltFactory,
  MaybePromise,
} from './components.js';
export { Grouping } from './grouping.js';
export { OutputFieldsDeclarer } from './output-declarer.js';
export { Fields } from './fields.js';
export { Tuple, type MessageId } from './tuple.js';
export type { TopologyContext, ComponentLogger, Signal, ComponentLoad, ComponentMetricSections, TupleCompleteListener } from './context.js';
export { Counter, Meter, UserHistogram, MetricRegistrationError } from './user-metrics.js';
export type { Gauge } from './user-metrics.js';
export { GpuBolt } from './gpu-bolt.js';
export type { GpuEmit } from './gpu-bolt.js';
export { GpuKernelRunner } from './gpu-kernel-runner.js';
export type { KernelSpec, KernelConstants } from './gpu-kernel-runner.js';
export { BatchInputs, BatchResult } from './gpu-batch.js';
export type { ItemShape } from './gpu-batch.js';
export type { GpuBackendHandle, GpuBackendName } from './gpu-backend-handle.js';
export { StreamSplit, SPLIT_GAMMA_SIGNAL } from './stream-split.js';
export type { StreamSplitOptions, GammaUpdate, SplitClock } from './stream-split.js';
export { decisionWindow, closestFraction } from './decision-window.js';
export { nextGamma, stepGamma, latencyDelta, capacityDelta } from './split-controller.js';
export type { SplitPolicy } from './split-controller.js';
export type { GpuMetrics, SplitMetrics, AppliedGamma, UserMetricsSnapshot } from '../common/storm-base.js';
export type { TopologyModule, TopologyModuleContext } from './topology-module.js';
export { DEFAULT_STREAM } from '../common/topology-def.js';
export type { TopologyDef, ComponentDef, GroupingDef, StreamDef } from '../common/topology-def.js';
export { TopologyValidationError, ConfigError } from '../common/errors.js';
export { ShellBolt } from './shell-bolt.js';
export { ShellSpout } from './shell-spout.js';
export type { ShellComponentOptions } from './shell-runner.js';
export { resourcesDirFor } from './multilang-resources.js';
export { MultilangError } from '../common/errors.js';
