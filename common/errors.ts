/**
 * Error kinds shared by every hstorm process. Each carries a stable `code`
 * (HSTORM_ERR_<AREA>_<WHAT>) so callers — and other processes, which receive
 * `{ code, message }` — branch on the code, never on the message text.
 * docs/errors.md lists every code with how to fix it (a test keeps both in step).
 */
export class HstormError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }

  toJSON(): SerializedError {
    return { code: this.code, message: this.message, stack: this.stack };
  }
}

export interface SerializedError {
  code: string;
  message: string;
  stack?: string | undefined;
}

/** A config key is unknown or its value is not allowed. */
export class ConfigError extends HstormError {
  constructor(
    message: string,
    readonly key: string,
    readonly value?: unknown,
  ) {
    super('HSTORM_ERR_CONFIG_INVALID', message);
  }
}

/** A topology cannot run as built: named component, stream or field is wrong. */
export class TopologyValidationError extends HstormError {
  constructor(
    message: string,
    readonly component?: string,
    /** Kinds with a code of their own (WindowValidationError) pass it; the rest share HSTORM_ERR_TOPOLOGY_INVALID. */
    code = 'HSTORM_ERR_TOPOLOGY_INVALID',
  ) {
    super(code, message);
  }
}

/**
 * A windowed bolt's window cannot work: a bad length, slide, lag or late
 * stream when the bolt is built, or — at submit, from `hstorm local`,
 * `submit` and `schedule` alike — a window that holds tuples longer than
 * `topology.message.timeout.secs` or more tuples than
 * `topology.max.spout.pending` lets be in flight. `limit` names the config
 * key it collides with, when it is one.
 */
export class WindowValidationError extends TopologyValidationError {
  constructor(
    message: string,
    component?: string,
    readonly limit?: { key: 'topology.message.timeout.secs' | 'topology.max.spout.pending'; value: number; needed: number },
  ) {
    super(message, component, 'HSTORM_ERR_TOPOLOGY_WINDOW');
  }
}

/**
 * A JoinBolt cannot work as configured, found when it is built: a join on a
 * stream not declared before (`join(new, field, prior)` with an unknown
 * `prior`), a stream joined twice, a select naming a stream that is not in the
 * join or no select at all, a field name that is not one, or — when the
 * topology is built — an input the join does not name, or a joined stream no
 * input provides.
 */
export class JoinValidationError extends TopologyValidationError {
  constructor(message: string, component?: string) {
    super(message, component, 'HSTORM_ERR_TOPOLOGY_JOIN');
  }
}

/**
 * A stateful topology cannot checkpoint as configured, found when it is built or submitted (`hstorm local`, `submit`,
 * `schedule`, and nimbus): `topology.state.checkpoint.interval.ms` not below a spout's `topology.message.timeout.secs`
 * (a stateful bolt acks its input at the checkpoint after it), acking off (checkpoints complete through acks), or a
 * stateful window setting that cannot work. `limit` names the key it collides with, when it is one.
 */
export class StateValidationError extends TopologyValidationError {
  constructor(
    message: string,
    component?: string,
    readonly limit?: { key: string; value: unknown },
  ) {
    super(message, component, 'HSTORM_ERR_TOPOLOGY_STATE');
  }
}

/**
 * The state store could not do what a checkpoint asked: Redis unreachable, a command past its timeout, a key holding
 * something other than hstorm's hash. The checkpoint fails and the checkpoint spout retries it; `where` says which
 * store and key.
 */
export class StateStoreError extends HstormError {
  constructor(
    message: string,
    readonly where: string,
    options?: { cause?: unknown },
  ) {
    super('HSTORM_ERR_STATESTORE_UNAVAILABLE', message, options);
  }
}

/**
 * An entry of a stateful bolt's state does not decode (garbage bytes under its key, or another program's data). The
 * entry is left out of the state the bolt gets, reported with the key, the component and the task, and left in the
 * store untouched for an operator to inspect.
 */
export class StateCorruptError extends HstormError {
  constructor(
    message: string,
    readonly key: string,
    readonly component: string,
    readonly task: number,
    options?: { cause?: unknown },
  ) {
    super('HSTORM_ERR_STATESTORE_CORRUPT', message, options);
  }
}

/**
 * A stateful bolt put into its KeyValueState a value the state cannot save — what could not travel in a tuple either
 * (a function, a symbol, an instance of a class not registered with registerSerialization, a circular value). Thrown
 * at `put`, so the bolt's execute fails where it put it (the tuple fails and replays), not the next checkpoint.
 */
export class StateValueError extends HstormError {
  constructor(
    message: string,
    readonly component: string,
    readonly task: number,
    /** Where in the value (e.g. `.points[2]`; empty: the value itself) and what it is. */
    readonly value: { path: string; type: string },
  ) {
    super('HSTORM_ERR_STATESTORE_VALUE', message);
  }
}

/**
 * A checkpoint asked a state store namespace for a transaction out of order: a commit of a txid other than the one
 * prepared. The checkpoint fails and recovery rolls the topology back.
 */
export class StateTxidError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_STATESTORE_TXID', message);
  }
}

/**
 * A stateful windowed bolt with `withMessageIdField` read a tuple's message id and got something other than a safe
 * integer. The tuple fails (its spout replays it) and the error shows as the component's last error.
 */
export class WindowMessageIdError extends HstormError {
  constructor(
    readonly component: string,
    readonly field: string,
    readonly value: unknown,
    source: string,
  ) {
    super(
      'HSTORM_ERR_WORKER_WINDOW_MESSAGE_ID',
      `stateful windowed bolt "${component}": the message id field "${field}" of a tuple from ${source} is ${typeof value === 'string' ? JSON.stringify(value) : String(value)} (${typeof value}); it must be a whole number that grows with every tuple a source task emits`,
    );
  }
}

/**
 * A windowed bolt in event time could not stamp a tuple: its timestamp field
 * or extractor gave something other than a finite number of ms. The tuple
 * fails (and the error shows as the component's last error).
 */
export class WindowTimestampError extends HstormError {
  constructor(
    readonly component: string,
    readonly value: unknown,
    source: string,
  ) {
    super(
      'HSTORM_ERR_WORKER_WINDOW_TIMESTAMP',
      `windowed bolt "${component}": the timestamp of a tuple from ${source} is ${typeof value === 'string' ? JSON.stringify(value) : String(value)} (${typeof value}); it must be a finite number of ms`,
    );
  }
}

/**
 * A component emitted what its declaration does not allow, at run time: on a
 * stream it never declared, a number of values other than the stream's
 * fields, or emitDirect to a task that does not subscribe directly. The
 * author's mistake, not hstorm's: `component` and `stream` name it.
 */
export class EmitError extends HstormError {
  constructor(
    message: string,
    readonly component: string,
    readonly stream: string,
    /** A value that cannot travel: the field holding it (index, and name where the stream declares one) and what it is. */
    readonly value: { index: number; field: string | null; path: string; type: string } | null = null,
  ) {
    super('HSTORM_ERR_TOPOLOGY_EMIT', message);
  }
}

/** A component asked a tuple for a field its stream does not declare (getValueByField, getIntegerByField, …). */
export class TupleFieldError extends HstormError {
  constructor(
    readonly field: string,
    /** The tuple's source component and stream. */
    readonly component: string,
    readonly stream: string,
    declared: readonly string[],
  ) {
    super('HSTORM_ERR_WORKER_TUPLE_FIELD', `field "${field}" is not declared on stream "${stream}" of "${component}" (fields: ${declared.join(', ')})`);
  }
}

/**
 * A typed getter of a tuple (getInteger, getLongByField, …) found a value of
 * another type, or none. A TypeError, as Storm's cast throws a
 * ClassCastException (so `instanceof TypeError` holds), with a code like
 * every HstormError.
 */
export class TupleValueError extends TypeError {
  readonly code = 'HSTORM_ERR_WORKER_TUPLE_VALUE';
  constructor(
    message: string,
    readonly index: number,
    /** The tuple's source component and stream. */
    readonly component: string,
    readonly stream: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A topology module could not be loaded or did not export a topology. */
export class TopologyLoadError extends HstormError {
  constructor(
    message: string,
    readonly modulePath: string,
    options?: { cause?: unknown },
  ) {
    super('HSTORM_ERR_TOPOLOGY_LOAD', message, options);
  }
}

/** hstorm/testing's completeTopology gave up: the topology did not complete within its timeout. */
export class TestingTimeoutError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_TESTING_TIMEOUT', message);
  }
}

/**
 * hstorm/testing's FeederSpout opened in a worker whose topology was not submitted from the process that feeds it
 * (LocalCluster.submitTopology connects the two, as Storm's FeederSpout works only in a local cluster).
 */
export class FeederNotConnectedError extends HstormError {
  constructor(
    message: string,
    readonly component: string,
  ) {
    super('HSTORM_ERR_TESTING_FEEDER', message);
  }
}

/** The scheduler was given input it cannot work with. */
export class SchedulingError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_SCHEDULER_INPUT', message);
  }
}

/** A frame or message could not be decoded. */
export class CodecError extends HstormError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('HSTORM_ERR_CODEC_DECODE', message, options);
  }
}

/** A command-line argument is not allowed. */
export class CliUsageError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_CLI_USAGE', message);
  }
}

/** Rebuild an error that crossed a process boundary as `{ code, message }`. */
export function reviveError(e: SerializedError): HstormError {
  const err = new HstormError(e.code, e.message);
  if (e.stack) err.stack = e.stack;
  return err;
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof HstormError) return err.toJSON();
  if (err instanceof Error) return { code: 'HSTORM_ERR_INTERNAL', message: err.message, stack: err.stack };
  return { code: 'HSTORM_ERR_INTERNAL', message: String(err) };
}

/** A client command could not reach nimbus's HTTP API (not running, wrong nimbus.host / nimbus.http.port). */
export class NimbusUnreachableError extends HstormError {
  constructor(
    readonly host: string,
    readonly port: number,
    detail: string,
  ) {
    super(
      'HSTORM_ERR_CLI_NIMBUS_UNREACHABLE',
      `nimbus is not reachable at ${host}:${port} (${detail}); is \`hstorm nimbus\` running there? (set nimbus.host / nimbus.http.port)`,
    );
  }
}

/** A multilang subprocess (ShellBolt / ShellSpout) could not be started, broke the protocol, died or hung. */
export class MultilangError extends HstormError {
  constructor(
    message: string,
    readonly command: readonly string[],
  ) {
    super('HSTORM_ERR_MULTILANG_SUBPROCESS', message);
  }
}

/** A request to nimbus's HTTP API came without the shared secret (`nimbus.auth.secret`), or with a wrong one. */
export class UnauthenticatedError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_NIMBUS_UNAUTHENTICATED', message);
  }
}
