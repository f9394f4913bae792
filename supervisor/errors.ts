/**
 * Errors a supervisor raises while getting a worker going. They are logged
 * and retried on the next round; none stops the supervisor.
 */
import { HstormError } from '../common/errors.js';

/** The topology bundle could not be downloaded from nimbus or did not verify. */
export class BundleDownloadError extends HstormError {
  constructor(
    message: string,
    readonly topologyId: string,
    options?: { cause?: unknown },
  ) {
    super('HSTORM_ERR_SUPERVISOR_BUNDLE_DOWNLOAD', message, options);
  }
}

/** A worker process could not be started (spawn failed, log file not writable…). */
export class WorkerLaunchError extends HstormError {
  constructor(
    message: string,
    readonly topologyId: string,
    readonly port: number,
    options?: { cause?: unknown },
  ) {
    super('HSTORM_ERR_SUPERVISOR_WORKER_LAUNCH', message, options);
  }
}

/** A request named a file the log server will not serve (bad id, bad port, outside the log directory). */
export class LogPathError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_SUPERVISOR_LOG_PATH', message);
  }
}

/** The worker log asked for does not exist on this node. */
export class LogNotFoundError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_SUPERVISOR_LOG_NOT_FOUND', message);
  }
}
