/**
 * Flux: topologies described in YAML, in Apache Storm's Flux format, with
 * JavaScript modules where Storm names Java classes (docs/flux.md). This
 * folder reads a Flux file — variables from a properties file or the
 * environment, includes, every key checked with its line and column — and
 * compiles it to a topology module; `runtime/` is what that module runs to
 * build the topology, in the CLI and in the workers. Used by cli/ (local,
 * submit, schedule); depends on the SDK and common/ only.
 *
 * @example
 * const compiled = compileFlux('topology.yaml', { filter: 'dev.properties' });
 * const modulePath = await fluxModuleForLocalRun(compiled);   // a topology module, for loadConfiguredTopology
 * const bundle = await bundleTopology(compiled.entry);         // what submit uploads (cli/topology-bundle.ts)
 */
export { compileFlux, fluxModuleForLocalRun, isFluxFile, type CompiledFlux, type FluxOptions } from './compile-flux.js';
export { FluxSyntaxError, FluxInvalidError, FluxReferenceError, FluxVariableError, FluxIncludeError, FluxClassError, FluxNotYetError } from './errors.js';
export { checkExportsStatically } from './static-exports.js';
export type { FluxPlan, FluxPosition, ComponentPlan, VertexPlan, StreamPlan } from './runtime/plan.js';
