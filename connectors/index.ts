/**
 * hstorm/connectors — what the connectors are built on, for writing one of
 * your own (a Kafka spout, a sink for another store): QueueSpout (a queue
 * message acknowledged to its broker when its tuple tree completes, retries
 * with storm-kafka-client's back-off, a failure stream or drop-and-count,
 * in flight bounded by topology.max.spout.pending, broker outages ridden out)
 * over SpoutAcking and BrokerLink, and BatchingBolt (batches by size or time,
 * acked after the write committed). Loads no client; the connectors
 * themselves are hstorm/connectors/redis, /rabbitmq and /postgres.
 * docs/connectors.md, "Writing your own queue spout".
 *
 * @example
 * import { QueueSpout, queueSpoutOptionsShape, parseOptions } from 'hstorm/connectors';
 * class KafkaSpout extends QueueSpout<KafkaMessage> { … }
 */
export { QueueSpout, queueSpoutOptionsShape, MessageDroppedError } from './common/queue-spout.js';
export type { QueueSpoutOptions } from './common/queue-spout.js';
export { SpoutAcking } from './common/spout-acking.js';
export type { Emission, FailOutcome } from './common/spout-acking.js';
export { retryOptionsSchema, retryDelayMs, mayRetry } from './common/retry-backoff.js';
export type { RetryOptions, RetryOptionsInput } from './common/retry-backoff.js';
export { BrokerLink, reconnectOptionsSchema } from './common/broker-link.js';
export type { BrokerLinkOptions, ReconnectOptions, LinkState } from './common/broker-link.js';
export { BatchingBolt } from './common/batching-bolt.js';
export { TupleBatcher, batchOptionsSchema } from './common/tuple-batcher.js';
export type { BatchOptions, BatchWriter } from './common/tuple-batcher.js';
export { parseOptions } from './common/connector-options.js';
export { ConnectorConfigError, ConnectorUnavailableError, ConnectorWriteError } from './common/connector-errors.js';
export { realConnectorClock } from './common/connector-clock.js';
export type { ConnectorClock } from './common/connector-clock.js';
