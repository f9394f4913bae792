/**
 * The `hstorm` package exports what topology authors use and nothing of the
 * runtime: no concrete tuple (authors could build one with forged ack ids),
 * no ack tracker, no daemon code. The list below is the whole public value
 * surface: adding to it is a decision, so it is spelled out here.
 *
 * The type-level half runs in the compiler: every `@ts-expect-error` below
 * must meet an error, or `tsc` (the build) fails.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as hstorm from 'hstorm';
import * as testing from 'hstorm/testing';
import type { Tuple } from 'hstorm';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { AckTracker } from '../../../worker/acking/ack-tracker.js';
import { packageRoot } from '../../../common/package-root.js';

/** Values (not types) an author may import from 'hstorm'. */
const PUBLIC_VALUES = [
  'BaseTickTupleAwareRichBolt',
  'BasicBolt',
  'Bolt',
  'ConfigError',
  'Constants',
  'ContextLookupError',
  'Count',
  'DEFAULT_STREAM',
  'Duration',
  'EmitError',
  'Fields',
  'GpuBolt',
  'GpuWindowedBolt',
  'Grouping',
  'HstormError',
  'JoinBolt',
  'JoinValidationError',
  'MetricRegistrationError',
  'MultilangError',
  'Selector',
  'ShellBolt',
  'ShellSpout',
  'Spout',
  'StateValidationError',
  'StatefulBolt',
  'StatefulWindowedBolt',
  'StreamSplit',
  'TickTupleAwareBolt',
  'TimeUnit',
  'TopologyBuilder',
  'TopologyValidationError',
  'TupleUtils',
  'Values',
  'WindowedBolt',
];

/**
 * Through the author's Tuple type, ack bookkeeping is invisible and nothing is
 * writable. Run on a throwaway tuple; each statement is harmless at run time.
 */
function authorView(t: Tuple): void {
  // @ts-expect-error -- the ack-tree ids are the runtime's, not on the author's Tuple
  void t.anchors;
  // @ts-expect-error -- the ack value is the runtime's, not on the author's Tuple
  t.ackLo = 1;
  // @ts-expect-error -- values are read-only
  t.values = [];
  // @ts-expect-error -- the values array is read-only too
  t.getValues().push(1);
  // @ts-expect-error -- the source is read-only
  t.sourceTask = 2;
  // @ts-expect-error -- Storm's MessageId is a read-only view of the ack trees
  t.getMessageId().anchorsToIds.set(1n, 2n);
}

describe('hstorm public surface', () => {
  it("exports exactly the author-facing values from 'hstorm'", () => {
    assert.deepEqual(Object.keys(hstorm).sort(), PUBLIC_VALUES);
  });

  it('exports no runtime internal: not the concrete tuple, not the ack tracker', () => {
    const exported = Object.values(hstorm) as unknown[];
    assert.ok(!exported.includes(RuntimeTuple), 'RuntimeTuple is exported from hstorm');
    assert.ok(!exported.includes(AckTracker), 'AckTracker is exported from hstorm');
    assert.equal('Tuple' in hstorm, false, 'Tuple must be a type only (no constructor)');
    assert.ok(!(Object.values(testing) as unknown[]).includes(RuntimeTuple), 'RuntimeTuple is exported from hstorm/testing');
  });

  it("exposes only '.', './testing' and the connectors' subpaths in package.json: deep imports of internals are refused", async () => {
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', './connectors', './connectors/postgres', './connectors/rabbitmq', './connectors/redis', './testing']);
    await assert.rejects(import('hstorm/dist/worker/executor/runtime-tuple.js' as string), (e: NodeJS.ErrnoException) => e.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('each connector subpath exports its components, and hstorm/connectors what they are built on', async () => {
    const names = async (entry: string) => Object.keys((await import(entry)) as object).sort();
    assert.deepEqual(await names('hstorm/connectors/redis'), ['RedisBolt', 'RedisLookupBolt', 'RedisStreamSpout']);
    assert.deepEqual(await names('hstorm/connectors/rabbitmq'), ['RabbitMqSpout']);
    assert.deepEqual(await names('hstorm/connectors/postgres'), ['PostgresBolt', 'PostgresLookupBolt']);
    assert.deepEqual(await names('hstorm/connectors'), [
      'BatchingBolt',
      'BrokerLink',
      'ConnectorConfigError',
      'ConnectorUnavailableError',
      'ConnectorWriteError',
      'MessageDroppedError',
      'QueueSpout',
      'SpoutAcking',
      'TupleBatcher',
      'batchOptionsSchema',
      'mayRetry',
      'parseOptions',
      'queueSpoutOptionsShape',
      'realConnectorClock',
      'reconnectOptionsSchema',
      'retryDelayMs',
      'retryOptionsSchema',
    ]);
  });

  it('a runtime tuple seen through the author type still reads its values (the type hides, it does not break)', () => {
    const rt = new RuntimeTuple(['w', 3], new hstorm.Fields(['word', 'n']), 'split', 'default', 7, [5, 0, 9, 0]);
    const t: Tuple = rt;
    assert.equal(t.getStringByField('word'), 'w');
    assert.equal(t.getIntegerByField('n'), 3);
    // The MessageId is a copy: changing it through a cast leaves the runtime's ids alone.
    (t.getMessageId().anchorsToIds as Map<bigint, bigint>).set(5n, 0n);
    assert.deepEqual(rt.anchors, [5, 0, 9, 0]);
    authorView(new RuntimeTuple(['x'], new hstorm.Fields(['x']), 'c', 'default', 1, null));
  });
});
