/**
 * The Flux runtime: what a compiled Flux file runs to build its topology, in
 * the CLI and in every worker. It travels inside the topology's code (the
 * module generated from the YAML file bundles it), so it imports nothing but
 * the SDK's public entry, which stays external (`hstorm`): the topology it
 * builds is made of the same classes the worker runs. ESLint keeps it so.
 *
 * @example
 * // What flux/ generates for a Flux file (modules in the order the plan numbers them):
 * import { buildFluxTopology } from '…/dist/flux/runtime/index.js';
 * import * as m0 from './components.js';
 * const plan = { source: 'topology.yaml', spouts: [...], bolts: [...], streams: [...], … };
 * export default () => buildFluxTopology(plan, [m0]);
 */
export { buildFluxTopology } from './build-topology.js';
export type { FluxPlan, FluxPosition, ObjectPlan, ComponentPlan, VertexPlan, StreamPlan, ArgPlan, ClassRef, BuiltinClassName, FluxGroupingType, PropertyPlan, MethodPlan } from './plan.js';
