/**
 * What the connector tests share: filling a Redis stream and a RabbitMQ queue
 * with unique ids, the PostgreSQL table they end up in, and the questions a
 * test asks at the end — is every id there exactly once, is anything still
 * pending in the Redis group or left in the queue — plus running the fixture
 * topology (test/fixtures/connectors-topology.ts) on a LocalCluster and
 * finding the worker that runs a component, for a kill -9.
 */
import { join } from 'node:path';
import amqp from 'amqplib';
import pg from 'pg';
import { createClient } from 'redis';
import { LocalCluster } from '../../cli/local-cluster.js';
import { silentLogger } from '../../common/logger.js';
import type { TopologyDetail } from '../../nimbus/views.js';
import { loadConfiguredTopology } from '../../worker/load-topology.js';
import { PACKAGE_ROOT, processAlive } from './cluster-processes.js';
import { waitFor } from './wait-for.js';

export const CONNECTORS_FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'connectors-topology.js');

/** Appends `count` entries `{ uid: <prefix><n> }` to a stream, pipelined in chunks. */
export async function fillStream(url: string, stream: string, count: number, prefix: string): Promise<void> {
  const client = await createClient({ url }).connect();
  try {
    for (let i = 0; i < count; i += 1000) {
      const chunk = [];
      for (let j = i; j < Math.min(count, i + 1000); j++) chunk.push(client.xAdd(stream, '*', { uid: `${prefix}${j}` }));
      await Promise.all(chunk);
    }
  } finally {
    client.destroy();
  }
}

/** Publishes `count` persistent messages with body `<prefix><n>` to a durable queue, confirmed by the broker. */
export async function fillQueue(url: string, queue: string, count: number, prefix: string): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createConfirmChannel();
    await ch.assertQueue(queue, { durable: true });
    for (let i = 0; i < count; i += 1000) {
      for (let j = i; j < Math.min(count, i + 1000); j++) ch.sendToQueue(queue, Buffer.from(`${prefix}${j}`), { persistent: true });
      await ch.waitForConfirms();
    }
  } finally {
    await conn.close();
  }
}

export async function sql<R extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The fixture's table: one row per uid (its primary key). */
export async function createSeenTable(url: string, table: string): Promise<void> {
  await sql(url, `CREATE TABLE ${table} (uid text PRIMARY KEY, source text NOT NULL)`);
}

/** Rows of the table; null while the server does not answer (it may be restarting). */
export async function rowCount(url: string, table: string): Promise<number | null> {
  try {
    return Number((await sql<{ n: string }>(url, `SELECT count(*) AS n FROM ${table}`))[0]!.n);
  } catch {
    return null;
  }
}

/** Which of `expected` ids are missing from the table (the primary key rules out duplicates). */
export async function missingIds(url: string, table: string, expected: string[]): Promise<string[]> {
  const rows = await sql<{ uid: string }>(url, `SELECT uid FROM ${table}`);
  const seen = new Set(rows.map((r) => r.uid));
  return expected.filter((id) => !seen.has(id));
}

export async function redisPending(url: string, stream: string, group: string): Promise<number> {
  const client = await createClient({ url }).connect();
  try {
    return (await client.xPending(stream, group)).pending;
  } finally {
    client.destroy();
  }
}

async function checkQueue(url: string, queue: string): Promise<{ messageCount: number; consumerCount: number }> {
  const conn = await amqp.connect(url);
  try {
    return await (await conn.createChannel()).checkQueue(queue);
  } finally {
    await conn.close();
  }
}

/** Messages ready in the queue (unacked ones return to it when their consumer's channel closes). */
export async function queueDepth(url: string, queue: string): Promise<number> {
  return (await checkQueue(url, queue)).messageCount;
}

export async function queueConsumers(url: string, queue: string): Promise<number> {
  return (await checkQueue(url, queue)).consumerCount;
}

/** A LocalCluster with short heartbeats, so that a killed worker is noticed and restarted quickly. */
export function startConnectorCluster(workers: number): Promise<LocalCluster> {
  return LocalCluster.start({ log: silentLogger(), portsNeeded: workers, clusterConfig: { 'worker.heartbeat.frequency.secs': 0.5, 'supervisor.monitor.frequency.secs': 0.5 } });
}

export async function submitFixture(cluster: LocalCluster, name: string, config: Record<string, unknown>): Promise<void> {
  const { def } = await loadConfiguredTopology(CONNECTORS_FIXTURE, config);
  await cluster.submit(name, CONNECTORS_FIXTURE, def, config);
}

/** The pid of the worker running `component`, once every worker of the topology heartbeats. */
export async function workerPidOf(cluster: LocalCluster, name: string, component: string): Promise<number> {
  return waitFor(`a running worker of ${name} with ${component}`, async () => {
    const d: TopologyDetail = await cluster.topologyDetail(name);
    const w = d.workers.find((x) => x.executors.some((e) => e.component === component) && x.metrics !== null && processAlive(x.metrics.pid));
    return w?.metrics?.pid ?? null;
  }, 60_000, 200);
}
