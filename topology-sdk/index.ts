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
export { Tuple } from './tuple.js';
export type { TopologyContext, ComponentLogger, Signal } from './context.js';
export type { TopologyModule, TopologyModuleContext } from './topology-module.js';
export { DEFAULT_STREAM } from '../common/topology-def.js';
export type { TopologyDef, ComponentDef, GroupingDef, StreamDef } from '../common/topology-def.js';
export { TopologyValidationError, ConfigError } from '../common/errors.js';
