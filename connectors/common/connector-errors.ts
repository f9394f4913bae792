/**
 * The connectors' errors, each with a stable code (docs/errors.md has a row
 * for every one, with how to fix it).
 */
import { HstormError } from '../../topology-sdk/index.js';

/** A connector's options are wrong: raised by its constructor, so at createTopology(), naming the option. */
export class ConnectorConfigError extends HstormError {
  constructor(
    readonly connector: string,
    readonly option: string,
    message: string,
  ) {
    super('HSTORM_ERR_CONNECTOR_CONFIG', `${connector}: option "${option}": ${message}`);
  }
}

/**
 * The broker or database cannot be reached: reported once per outage as the component's last error (what
 * `hstorm describe` and the UI show), with the address and never the credentials.
 */
export class ConnectorUnavailableError extends HstormError {
  constructor(
    readonly connector: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super('HSTORM_ERR_CONNECTOR_UNAVAILABLE', `${connector}: ${address} is unreachable (${reason}); not emitting, reconnecting with back-off`);
  }
}

/** A sink's batch could not be written or committed: its tuples were failed, to be replayed by their spouts. */
export class ConnectorWriteError extends HstormError {
  constructor(
    readonly connector: string,
    readonly tuples: number,
    readonly reason: string,
  ) {
    super('HSTORM_ERR_CONNECTOR_WRITE', `${connector}: a batch of ${tuples} tuple(s) was not committed (${reason}); failed them for replay`);
  }
}
