/**
 * Errors the Flux runtime raises while it builds a topology — in the CLI when
 * the topology is loaded, and the same way in every worker. They extend the
 * SDK's HstormError (the one the runtime and the worker share), so codes and
 * `instanceof HstormError` survive the bundle.
 */
import { HstormError } from '../../topology-sdk/index.js';
import { formatPosition, type FluxPosition } from './plan.js';

/**
 * A `className` (or its `factory`, a property, a config method) cannot be
 * used as written: a Java class hstorm does not know, a module that is not
 * there, an export it lacks, something that is not a class, a method or
 * property the object does not have, or a constructor that threw.
 */
export class FluxClassError extends HstormError {
  constructor(
    message: string,
    readonly at: FluxPosition,
    /** The key's path in the file: `bolts[1].className`, `spouts[0].configMethods[2]`. */
    readonly key: string,
    /** The className as written. */
    readonly className: string,
    options?: { cause?: unknown },
  ) {
    super('HSTORM_ERR_FLUX_CLASS', `${formatPosition(at)}: ${key}: ${message}`, options);
  }
}

/** Flux can configure it, hstorm cannot run it yet (windowed and stateful bolts, connectors, custom groupings, …). */
export class FluxNotYetError extends HstormError {
  constructor(
    message: string,
    readonly at: FluxPosition,
    readonly key: string,
    /** What is missing, in a word or two ("customGrouping", "windowed bolts"). */
    readonly feature: string,
  ) {
    super('HSTORM_ERR_FLUX_NOT_YET', `${formatPosition(at)}: ${key}: ${message}`);
  }
}
