/**
 * Errors nimbus raises for requests it refuses. The HTTP API maps each code to
 * a status (http-errors.ts); the CLI receives `{ code, message }` and rebuilds
 * them with reviveError, so callers branch on `code`.
 */
import { HstormError } from '../common/errors.js';

/** No topology with that name (or id) is known to nimbus. */
export class TopologyNotFoundError extends HstormError {
  constructor(readonly topology: string) {
    super('HSTORM_ERR_NIMBUS_TOPOLOGY_NOT_FOUND', `no topology named "${topology}" is running on this cluster (see \`hstorm list\`)`);
  }
}

/** A topology with that name is already on the cluster (killed ones stay until their wait has passed). */
export class TopologyExistsError extends HstormError {
  constructor(
    readonly topology: string,
    readonly status: string,
  ) {
    super(
      'HSTORM_ERR_NIMBUS_TOPOLOGY_EXISTS',
      `a topology named "${topology}" is already on the cluster (status ${status}); kill it first or choose another name`,
    );
  }
}

/** The request itself is malformed: bad name, body, bundle or checksum. */
export class BadRequestError extends HstormError {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super('HSTORM_ERR_NIMBUS_BAD_REQUEST', message);
  }
}

/** An uploaded bundle does not match its checksum or is not gzip data. */
export class BundleInvalidError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_NIMBUS_BUNDLE_INVALID', message);
  }
}

/** The operation does not apply in the topology's current status (e.g. activating a killed topology). */
export class TopologyStateError extends HstormError {
  constructor(
    message: string,
    readonly topology: string,
    readonly status: string,
  ) {
    super('HSTORM_ERR_NIMBUS_TOPOLOGY_STATE', message);
  }
}

/** The topology has no component with that id (Storm UI API's /topology/:id/component/:component). */
export class ComponentNotFoundError extends HstormError {
  constructor(
    readonly topology: string,
    readonly component: string,
  ) {
    super('HSTORM_ERR_NIMBUS_COMPONENT_NOT_FOUND', `topology "${topology}" has no component "${component}"`);
  }
}
