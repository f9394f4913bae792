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

/**
 * A sink's store refused one row of a batch for what it holds (PostgreSQL's SQLSTATE classes 22 and 23: a value it
 * cannot take, a constraint): the batch was split until that tuple stood alone, the others were written and acked,
 * and this one was failed (or sent to the bolt's failure stream), with the store's own message and code.
 */
export class ConnectorRejectedError extends HstormError {
  constructor(
    readonly connector: string,
    /** The store's code for it (PostgreSQL's SQLSTATE, e.g. 22021). */
    readonly storeCode: string,
    readonly reason: string,
    /** What became of the tuple. */
    readonly outcome: 'failed' | 'failure-stream',
  ) {
    super(
      'HSTORM_ERR_CONNECTOR_REJECTED',
      `${connector}: a row was refused (${reason}; SQLSTATE ${storeCode}); the rest of its batch was written, this tuple ${outcome === 'failed' ? 'was failed' : 'went to the failure stream'}`,
    );
  }
}
