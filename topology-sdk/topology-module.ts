/**
 * The contract of a topology module: an ESM file whose default export is the
 * built topology, or a function that builds it from the final topology config
 * (so `-c my.key=value` reaches the author's code, and every worker builds the
 * same topology from the same config).
 */
import type { StormTopology } from './topology-builder.js';

export interface TopologyModuleContext {
  /** The topology config as submitted (defaults, cluster config, module config and `-c` overrides merged). */
  config: Readonly<Record<string, unknown>>;
}

export type TopologyModule =
  | StormTopology
  | ((context: TopologyModuleContext) => StormTopology | Promise<StormTopology>);
