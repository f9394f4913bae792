/**
 * Connector options are checked when the topology is built: a wrong option
 * fails createTopology() with the component named and the option, the value
 * and what is allowed in the message (a misspelt option gets "did you mean"),
 * and no credential ever appears in it.
 */
import assert from 'node:assert/strict';
import { TopologyBuilder, TopologyValidationError } from '../../../topology-sdk/index.js';
import { ConnectorConfigError } from '../../../connectors/common/connector-errors.js';
import { PostgresBolt, PostgresLookupBolt } from '../../../connectors/postgres/index.js';
import { RabbitMqSpout } from '../../../connectors/rabbitmq/index.js';
import { RedisBolt, RedisLookupBolt, RedisStreamSpout } from '../../../connectors/redis/index.js';
import { fakeContext } from '../../helpers/fake-context.js';

function configError(make: () => unknown, option: string, pattern: RegExp): void {
  assert.throws(make, (err: unknown) => {
    assert.ok(err instanceof ConnectorConfigError, `expected a ConnectorConfigError, got ${String(err)}`);
    assert.equal(err.code, 'HSTORM_ERR_CONNECTOR_CONFIG');
    assert.equal(err.option, option);
    assert.match(err.message, pattern);
    return true;
  });
}

describe('connectors: options checked when the topology is built', () => {
  it('fails createTopology naming the component and the option', () => {
    const b = new TopologyBuilder();
    b.setSpout('events', () => new RedisStreamSpout({ stream: 'events', readCount: 0 }));
    assert.throws(
      () => b.createTopology(),
      (err: unknown) => err instanceof TopologyValidationError && /component "events"/.test(err.message) && /RedisStreamSpout: option "readCount"/.test(err.message) && /got 0/.test(err.message),
    );
  });

  it('suggests the option meant for a misspelt one and lists the allowed ones', () => {
    configError(() => new RedisStreamSpout({ stream: 's', stram: 'x' } as never), 'stram', /did you mean "stream"\?.*allowed: .*stream/);
    configError(() => new PostgresBolt({ table: 't', columns: ['a'], conflictColumns: ['a'], batch: { sise: 3 } } as never), 'batch.sise', /did you mean "size"/);
  });

  it('says what is allowed for an enumerated option', () => {
    configError(() => new RabbitMqSpout({ queue: 'q', body: 'xml' as never }), 'body', /"utf8"\|"json"\|"binary"/);
    configError(() => new RedisStreamSpout({ stream: 's', onMaxRetries: 'ignore' as never }), 'onMaxRetries', /"drop"\|"failure-stream"/);
  });

  it('asks for what a mode needs', () => {
    configError(() => new PostgresBolt({ table: 't', columns: ['a', 'b'] }), 'conflictColumns', /mode 'upsert' needs the key's columns/);
    configError(() => new PostgresBolt({ table: 't', columns: ['a'], conflictColumns: ['z'] }), 'conflictColumns', /"z" is not one of the columns written/);
    configError(() => new RedisBolt({ dataType: 'hash', keyField: 'k', valueField: 'v' }), 'additionalKey', /writes into one key/);
    configError(() => new RedisLookupBolt({ dataType: 'string', keyField: 'k', outputFields: ['k'] }), 'outputFields', /must include "value"/);
    configError(() => new PostgresLookupBolt({ table: 't', keyColumn: 'id', keyField: 'id', columns: [], outputFields: ['id'] }), 'columns', /at least 1|>=1/i);
  });

  it('never shows a URL or password in the message', () => {
    assert.throws(
      () => new RedisStreamSpout({ stream: 's', url: 'redis://bob:hunter2@db:6379', readCount: -1 }),
      (err: unknown) => err instanceof ConnectorConfigError && !err.message.includes('hunter2'),
    );
    assert.throws(
      () => new RabbitMqSpout({ queue: 'q', url: 42 as never }),
      (err: unknown) => err instanceof ConnectorConfigError && err.option === 'url',
    );
    assert.throws(
      () => new PostgresBolt({ table: 't', columns: ['a'], conflictColumns: ['a'], connection: { connectionString: 'postgresql://u:hunter2@h/d', port: 0 } }),
      (err: unknown) => err instanceof ConnectorConfigError && err.option === 'connection.port' && !err.message.includes('hunter2'),
    );
  });

  it('declares the failure stream with the spout fields and a reason, only when asked for', () => {
    const b = new TopologyBuilder();
    b.setSpout('r', () => new RedisStreamSpout({ stream: 's', entryFields: ['uid'], onMaxRetries: 'failure-stream', failureStream: 'dead' }));
    b.setSpout('q', () => new RabbitMqSpout({ queue: 'q' }));
    const def = b.createTopology().def;
    const streams = (id: string) => def.components.find((c) => c.id === id)!.streams.map((s) => [s.id, s.fields]);
    assert.deepEqual(streams('r'), [
      ['default', ['stream', 'id', 'uid']],
      ['dead', ['stream', 'id', 'uid', 'reason']],
    ]);
    assert.deepEqual(streams('q'), [['default', ['routingKey', 'headers', 'body']]]);
  });

  it('a sink whose input lacks a field it writes fails to prepare, naming the option and the stream', async () => {
    const b = new TopologyBuilder();
    b.setSpout('src', () => new RedisStreamSpout({ stream: 's', entryFields: ['uid'] }));
    b.setBolt('store', () => new PostgresBolt({ table: 't', columns: ['uid', 'count'], conflictColumns: ['uid'] })).shuffleGrouping('src');
    const def = b.createTopology().def;
    const bolt = new PostgresBolt({ table: 't', columns: ['uid', 'count'], conflictColumns: ['uid'] });
    const collector = { emit: () => [], emitDirect: () => undefined, reportError: () => undefined, ack: () => undefined, fail: () => undefined, resetTimeout: () => undefined };
    await assert.rejects(
      Promise.resolve().then(() => bolt.prepare({} as never, fakeContext({ component: 'store', def }), collector)),
      (err: unknown) => err instanceof ConnectorConfigError && err.option === 'columns' && /"count" not declared by "src" on stream "default" \(it declares: stream, id, uid\)/.test(err.message),
    );
  });
});
