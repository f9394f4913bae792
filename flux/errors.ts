/**
 * What can be wrong with a Flux file, one class per kind, each with a stable
 * code (docs/errors.md) and where it is: `at` is the file, line and column
 * (null only when the file cannot be read at all), `key` the path of the key
 * in the file (`bolts[1].grouping.type`). Messages start with
 * `file:line:column:` so an editor jumps there.
 */
import { HstormError } from '../common/errors.js';
import { formatPosition, type FluxPosition } from './runtime/plan.js';

export { FluxClassError, FluxNotYetError } from './runtime/errors.js';

function located(at: FluxPosition | null, message: string): string {
  return at ? `${formatPosition(at)}: ${message}` : message;
}

/** The file cannot be read, is not YAML (a parse error, a duplicate key), or is not a map of Flux's keys. */
export class FluxSyntaxError extends HstormError {
  constructor(
    message: string,
    readonly at: FluxPosition | null,
    readonly file: string,
  ) {
    super('HSTORM_ERR_FLUX_SYNTAX', located(at, message));
  }
}

/** A key Flux does not have (with "did you mean"), a value of the wrong type or range, a missing key, a grouping's args that do not fit its type, a config key or value hstorm refuses. */
export class FluxInvalidError extends HstormError {
  constructor(
    message: string,
    readonly at: FluxPosition,
    readonly key: string,
  ) {
    super('HSTORM_ERR_FLUX_INVALID', located(at, message));
  }
}

/** An id used where nothing declares it (a stream's from/to, a ref), an id declared twice, or components that refer to each other in a circle. */
export class FluxReferenceError extends HstormError {
  constructor(
    message: string,
    readonly at: FluxPosition,
    readonly key: string,
    /** The id that was used or declared. */
    readonly id: string,
  ) {
    super('HSTORM_ERR_FLUX_REFERENCE', located(at, message));
  }
}

/** A `${name}` with no value: not in the --filter file, an environment variable that is not set (or no --env-filter), a list index out of range; or a --filter file that cannot be read. */
export class FluxVariableError extends HstormError {
  constructor(
    message: string,
    readonly at: FluxPosition | null,
    readonly variable: string,
  ) {
    super('HSTORM_ERR_FLUX_VARIABLE', located(at, message));
  }
}

/** An `includes` entry whose file is missing, or that includes a file already being included (a cycle). */
export class FluxIncludeError extends HstormError {
  constructor(
    message: string,
    readonly at: FluxPosition,
    /** `includes[i].file` of the file that includes. */
    readonly key: string,
    /** The chain of files, outermost first, that leads to the problem. */
    readonly chain: readonly string[],
  ) {
    super('HSTORM_ERR_FLUX_INCLUDE', located(at, message));
  }
}
