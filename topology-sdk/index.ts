/**
 * hstorm topology SDK (the `hstorm` package) — what a topology author
 * imports, and nothing else: no daemon code (ZooKeeper, ZeroMQ or pino at run
 * time) and no runtime internals (the concrete tuple, ack bookkeeping, the
 * GPU kernel runner, the split controller's maths). The runtime imports
 * those from their own modules; test/unit/sdk/public-surface.test.ts fails
 * if one leaks out here.
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

// Building a topology.
export { TopologyBuilder } from './topology-builder.js';
export type { StormTopology, BoltDeclarer, SpoutDeclarer, WindowedBoltFactory, SpoutSource } from './topology-builder.js';
export type { TopologyModule, TopologyModuleContext } from './topology-module.js';
export { Grouping } from './grouping.js';
export type { CustomStreamGrouping, CustomGroupingSource } from './custom-grouping.js';
export { Fields } from './fields.js';
export type { OutputFieldsDeclarer } from './output-declarer.js';
export type { Serializer, SerializationRegistration, ClassOf } from './serialization.js';
export { DEFAULT_STREAM } from '../common/topology-def.js';
export type { TopologyDef, ComponentDef, GroupingDef, StreamDef, GlobalStreamId, WindowDef, WindowSizeDef, StateDef } from '../common/topology-def.js';

// Components and what the runtime hands them.
export { Spout, Bolt, BasicBolt } from './components.js';
export { TickTupleAwareBolt, TickTupleAwareBolt as BaseTickTupleAwareRichBolt } from './tick-tuple-aware-bolt.js';
export type { SpoutSupplier, BoltBiConsumer, BoltConsumer } from './internal/lambda-components.js';
export { Values } from './values.js';
export type {
  EmitOptions,
  SpoutOutputCollector,
  OutputCollector,
  BasicOutputCollector,
  Conf,
  FailReason,
  SpoutFactory,
  BoltFactory,
  MaybePromise,
} from './components.js';
export type { Tuple, MessageId } from './tuple.js';
export { TupleUtils, Constants } from './tuple-utils.js';
export type { StormContextGetters } from './internal/storm-context.js';
export type { TopologyContext, ComponentLogger, ComponentPlacement, Signal, ComponentLoad, ComponentMetricSections, TupleCompleteListener } from './context.js';
export type { Counter, Meter, UserHistogram, Gauge } from './user-metrics.js';

// Windows (Storm's BaseWindowedBolt; docs/windowing.md).
export { WindowedBolt } from './windowed-bolt.js';
export type { TimestampExtractor } from './windowed-bolt.js';
export { Count, Duration, TimeUnit } from './window-units.js';
export type { TupleWindow, TupleIterator, LateTuple } from './tuple-window.js';
export { JoinBolt, Selector } from './join-bolt.js';

// State (Storm's IStatefulBolt and KeyValueState; docs/state.md).
export { StatefulBolt } from './stateful-bolt.js';
export type { StatefulBoltFactory } from './stateful-bolt.js';
export type { KeyValueState } from './state.js';
export { StatefulWindowedBolt } from './stateful-windowed-bolt.js';

// GPU bolts.
export { GpuBolt } from './gpu-bolt.js';
export type { GpuEmit } from './gpu-bolt.js';
export { GpuWindowedBolt } from './gpu-windowed-bolt.js';
export type { GpuWindowEmit, WindowBatch } from './gpu-windowed-bolt.js';
export type { KernelSpec, KernelConstants } from './internal/gpu-kernel-runner.js';
export type { BatchInputs, BatchResult, ItemShape } from './internal/gpu-batch.js';
export type { GpuBackendHandle, GpuBackendName } from './gpu-backend-handle.js';

// Splitting a stream between CPU and GPU.
export { StreamSplit } from './stream-split.js';
export type { StreamSplitOptions, SplitClock } from './stream-split.js';
export type { SplitPolicy } from './internal/split-controller.js';

// Multilang.
export { ShellBolt } from './shell-bolt.js';
export { ShellSpout } from './shell-spout.js';
export type { ShellComponentOptions } from './internal/shell-runner.js';

// Errors a topology may catch.
export { HstormError, TopologyValidationError, ConfigError, EmitError, MultilangError, StateValidationError, JoinValidationError } from '../common/errors.js';
export { MetricRegistrationError } from './user-metrics.js';
export { ContextLookupError } from './internal/storm-context.js';
