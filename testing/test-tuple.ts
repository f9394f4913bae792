/**
 * Tuples for unit tests of one bolt (Storm's `Testing.testTuple`): the tuple a bolt would receive, without a
 * topology. Untracked (no ack tree): acking, failing or anchoring to it is recorded by a capturing collector
 * (capturing-collectors.ts) and does nothing else.
 *
 * @example
 * const bolt = new SplitBolt();
 * const out = new CapturingBasicOutputCollector();
 * bolt.execute(testTuple(['the cow'], { fields: ['sentence'] }), out);
 * assert.deepEqual(out.valuesOn('default'), [['the'], ['cow']]);
 */
import { DEFAULT_STREAM } from '../common/topology-def.js';
import { Fields } from '../topology-sdk/fields.js';
import type { Tuple } from '../topology-sdk/tuple.js';
import { RuntimeTuple, tickTuple } from '../worker/index.js';

export interface TestTupleOptions {
  /** Source component; default "component" (Storm's). */
  component?: string;
  /** Source stream; default "default". */
  stream?: string;
  /** Source task; default 1. */
  task?: number;
  /** Field names, a Fields or a list; default field1, field2, … (Storm's). */
  fields?: Fields | readonly string[];
}

export function testTuple(values: readonly unknown[], opts: TestTupleOptions = {}): Tuple {
  const fields = opts.fields instanceof Fields ? opts.fields : new Fields(opts.fields ? [...opts.fields] : values.map((_v, i) => `field${i + 1}`));
  if (fields.size() !== values.length) throw new RangeError(`testTuple: ${values.length} value(s) for ${fields.size()} field(s) (${fields.toList().join(', ')})`);
  return new RuntimeTuple([...values], fields, opts.component ?? 'component', opts.stream ?? DEFAULT_STREAM, opts.task ?? 1, null);
}

/** A tick tuple as the runtime delivers it (from __system task -1 on __tick, values [secs]): TupleUtils.isTick says true. */
export function testTickTuple(secs = 1): Tuple {
  return tickTuple(secs);
}
