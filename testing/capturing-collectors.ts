/**
 * Collectors that record what a component does with them, for unit tests of one spout or bolt without a cluster
 * (Storm users mock OutputCollector for this). They take every form of emit the runtime's collectors take
 * (emit-args.ts) and refuse the same calls; given the topology, they also refuse the values the runtime refuses
 * (an unregistered class, a function…), so a unit test fails where a worker would.
 *
 * @example
 * const out = new CapturingOutputCollector();
 * bolt.prepare({}, testContext({ component: 'split' }), out);
 * bolt.execute(testTuple(['a b']));
 * assert.deepEqual(out.valuesOn('default'), [['a'], ['b']]);
 * assert.equal(out.acked.length, 1);
 */
import { EmitError } from '../common/errors.js';
import type { BasicOutputCollector, OutputCollector, SpoutOutputCollector } from '../topology-sdk/components.js';
import { readEmitArgs, type CollectorKind } from '../topology-sdk/internal/emit-args.js';
import type { StormTopology } from '../topology-sdk/topology-builder.js';
import type { Tuple } from '../topology-sdk/tuple.js';
import { inspectValues, ValueRefusal, ValueTypes } from '../worker/index.js';

export interface CapturedEmit {
  stream: string;
  values: unknown[];
  /** Bolts: the input tuples it was anchored to (a basic bolt's: its input). */
  anchors: Tuple[];
  /** Spouts: the message id; undefined for an untracked emit. */
  messageId: unknown;
  /** emitDirect: the target task; null for an emit by grouping. */
  directTask: number | null;
}

export interface CapturingOptions {
  /** Check values as the runtime does, against this topology's registered classes (registerSerialization). */
  topology?: StormTopology;
  /** The task ids emit returns; default none. */
  targets?: number[];
}

abstract class Capturing {
  readonly emitted: CapturedEmit[] = [];
  readonly errors: unknown[] = [];
  /** Bolts: the tuples passed to resetTimeout, in order. */
  readonly timeoutsReset: Tuple[] = [];
  private readonly types: ValueTypes | null;
  private readonly targets: number[];

  constructor(
    private readonly kind: CollectorKind,
    opts: CapturingOptions,
  ) {
    this.types = opts.topology ? new ValueTypes(opts.topology.serializations) : null;
    this.targets = opts.targets ?? [];
  }

  /** The value lists emitted on `stream` (default "default"), in order. */
  valuesOn(stream = 'default'): unknown[][] {
    return this.emitted.filter((e) => e.stream === stream).map((e) => e.values);
  }

  protected record(args: unknown[], directTask: number | null, implicitAnchor: Tuple | null): number[] {
    const e = readEmitArgs(this.kind, 'under test', args[0], args[1], args[2], directTask === null ? 'emit' : 'emitDirect');
    if (this.types) {
      try {
        inspectValues(e.values, this.types);
      } catch (err) {
        if (!(err instanceof ValueRefusal)) throw err;
        throw new EmitError(`emitted ${err.what}${err.path ? ` at ${err.path}` : ''} in value ${err.index} on stream "${e.stream}": it cannot travel between workers; ${err.hint}`, 'under test', e.stream, {
          index: err.index,
          field: null,
          path: err.path,
          type: err.what,
        });
      }
    }
    const anchors = implicitAnchor ? [implicitAnchor] : e.anchors === undefined ? [] : Array.isArray(e.anchors) ? [...(e.anchors as Tuple[])] : [e.anchors as Tuple];
    this.emitted.push({ stream: e.stream, values: [...e.values], anchors, messageId: e.messageId, directTask });
    return directTask === null ? [...this.targets] : [directTask];
  }

  readonly reportError = (err: unknown): void => void this.errors.push(err);
}

/** A Bolt's collector (Storm's OutputCollector) that records emits, acks, fails and reported errors. */
export class CapturingOutputCollector extends Capturing implements OutputCollector {
  readonly acked: Tuple[] = [];
  readonly failed: Tuple[] = [];

  constructor(opts: CapturingOptions = {}) {
    super('bolt', opts);
  }

  // Bound, as the runtime's are: a component may hand `collector.emit` around on its own.
  readonly emit = (...args: unknown[]): number[] => this.record(args, null, null);
  readonly emitDirect = (taskId: number, ...args: unknown[]): void => void this.record(args, taskId, null);

  readonly ack = (tuple: Tuple): void => void this.acked.push(tuple);
  readonly fail = (tuple: Tuple): void => void this.failed.push(tuple);
  readonly resetTimeout = (tuple: Tuple): void => void this.timeoutsReset.push(tuple);
}

/**
 * A BasicBolt's collector: every emit anchored to `input` (the tuple being executed; set it with `forInput` or pass
 * it to the constructor), as the runtime anchors them.
 */
export class CapturingBasicOutputCollector extends Capturing implements BasicOutputCollector {
  constructor(
    public input: Tuple | null = null,
    opts: CapturingOptions = {},
  ) {
    super('basic', opts);
  }

  /** Sets the input the next emits anchor to; returns this collector (`bolt.execute(t, out.forInput(t))`). */
  forInput(input: Tuple): this {
    this.input = input;
    return this;
  }

  readonly emit = (...args: unknown[]): number[] => this.record(args, null, this.input);
  readonly emitDirect = (taskId: number, ...args: unknown[]): void => void this.record(args, taskId, this.input);
  readonly resetTimeout = (tuple: Tuple): void => void this.timeoutsReset.push(tuple);
}

/** A spout's collector (Storm's SpoutOutputCollector) that records emits (with their message ids) and reported errors. */
export class CapturingSpoutOutputCollector extends Capturing implements SpoutOutputCollector {
  constructor(opts: CapturingOptions = {}) {
    super('spout', opts);
  }

  // Bound, as the runtime's are: a component may hand `collector.emit` around on its own.
  readonly emit = (...args: unknown[]): number[] => this.record(args, null, null);
  readonly emitDirect = (taskId: number, ...args: unknown[]): void => void this.record(args, taskId, null);
}
