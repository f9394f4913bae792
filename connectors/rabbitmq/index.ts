/**
 * hstorm/connectors/rabbitmq — RabbitMqSpout: a RabbitMQ queue consumed with
 * manual acks, each message acked when its tuple tree completes, prefetch =
 * topology.max.spout.pending. A topology that does not import this module
 * never loads amqplib. docs/connectors.md.
 *
 * @example
 * import { RabbitMqSpout } from 'hstorm/connectors/rabbitmq';
 * builder.setSpout('orders', () => new RabbitMqSpout({ url: 'amqp://127.0.0.1:5672', queue: 'orders', body: 'json' }), 2);
 */
export { RabbitMqSpout } from './rabbitmq-spout.js';
export type { RabbitMqSpoutOptions } from './rabbitmq-spout.js';
