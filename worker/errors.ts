/**
 * Errors a worker raises for what a topology's own code, or the cluster
 * around it, can cause; each has a stable code and a row in docs/errors.md.
 * The worker also raises errors of common/errors.ts: EmitError (an emit its
 * declaration does not allow), TopologyLoadError (a module that does not
 * build the submitted topology), CodecError (a frame that does not decode). What only a bug in
 * hstorm can cause stays a plain Error, marked as an invariant where thrown.
 */
import { HstormError } from '../common/errors.js';

// A tuple's read errors live in common/ (the SDK's tuples raise them too); re-exported here, where the worker's are.
export { TupleFieldError, TupleValueError } from '../common/errors.js';

/** A TopologyContext hook was called by a task it does not apply to (onTupleComplete from a bolt). */
export class ContextHookError extends HstormError {
  constructor(
    readonly hook: string,
    readonly component: string,
    readonly task: number,
    why: string,
  ) {
    super('HSTORM_ERR_WORKER_CONTEXT_HOOK', `${hook}: "${component}" task ${task} ${why}`);
  }
}

/** sendSignal lost the race to other senders of the same signal on every attempt. */
export class SignalContentionError extends HstormError {
  constructor(
    readonly component: string,
    readonly signal: string,
    readonly attempts: number,
  ) {
    super('HSTORM_ERR_WORKER_SIGNAL_CONTENTION', `signal ${signal} to ${component}: too much contention`);
  }
}

/** The worker's topology, or its slot, is not (or no longer) in the cluster state: killed or rebalanced while it started. */
export class WorkerNotAssignedError extends HstormError {
  constructor(
    message: string,
    readonly topologyId: string,
  ) {
    super('HSTORM_ERR_WORKER_NOT_ASSIGNED', message);
  }
}

/** WebGPU reported an error in a kernel launch (validation, out of memory, internal); the launch's result is not trusted. */
export class GpuLaunchError extends HstormError {
  constructor(readonly reason: string) {
    super('HSTORM_ERR_WORKER_GPU_LAUNCH', `WebGPU error during the launch: ${reason}`);
  }
}

/**
 * Tuples were emitted towards a component none of whose needed tasks runs (the scheduler left them unassigned): they
 * were failed at once, not left to wait out the message timeout. Reported as the emitting component's error.
 */
export class TargetUnplacedError extends HstormError {
  constructor(
    readonly component: string,
    readonly stream: string,
    readonly target: string,
    readonly tuples: number,
    readonly reason: string,
  ) {
    super('HSTORM_ERR_WORKER_TARGET_UNPLACED', `${tuples} tuple(s) of "${component}" on stream "${stream}" to "${target}": not placed (${reason}); failed at once`);
  }
}

/** A component's open or prepare threw (or rejected) while its worker started: the worker cannot run, and exits. */
export class ComponentStartError extends HstormError {
  constructor(
    readonly component: string,
    readonly task: number,
    cause: unknown,
  ) {
    super('HSTORM_ERR_WORKER_COMPONENT_START', `component "${component}" task ${task} failed to start (its open/prepare threw): ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}
