/**
 * The hand-written program the connectors benchmark compares hstorm with,
 * run as its own process: what a careful Node developer writes without a
 * stream processor — per consumer, a loop of XREADGROUP (500 entries, block
 * 100 ms) → transform → one INSERT … ON CONFLICT (one statement, its own
 * transaction) → XACK —
 * `parallelism` such loops at once, until `total` rows are committed. The
 * INSERT is the statement PostgresBolt sends (one array per column through
 * unnest(), prepared once), so that both sides do the same database work and
 * the difference is what the runtime adds.
 * Reports (on stdout, JSON) each batch's time from read to XACK and the
 * process's CPU time from its first commit to its last (its rate is read from
 * the table, as hstorm's is).
 *
 *   node redis-to-postgres-baseline.js <redis url> <stream> <postgres url> <table> <parallelism> <total>
 */
import pg from 'pg';
import { createClient } from 'redis';
import { eventRow } from '../topologies/event-transform.js';

const [redisUrl = '', stream = '', postgresUrl = '', table = '', parallelism = '1', total = '0'] = process.argv.slice(2);
const group = 'baseline';
const UPSERT = `INSERT INTO ${table} (uid, cents, category) SELECT * FROM unnest($1::text[], $2::integer[], $3::text[]) ON CONFLICT (uid) DO UPDATE SET cents = EXCLUDED.cents, category = EXCLUDED.category`;
const want = Number(total);
let committed = 0;
const batchMs: number[] = [];
/** CPU (user + system µs) at the first commit; the run's CPU per row is counted from there, as its rate is. */
let cpuAtFirst: { cpu: number; rows: number } | null = null;
const cpuNow = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function consumer(name: string): Promise<void> {
  const redis = await createClient({ url: redisUrl }).connect();
  const db = new pg.Client({ connectionString: postgresUrl });
  await db.connect();
  while (committed < want) {
    const reply = await redis.xReadGroup(group, name, { key: stream, id: '>' }, { COUNT: 500, BLOCK: 100 });
    const messages = (reply?.[0]?.messages ?? []) as { id: string; message: Record<string, string> }[];
    if (messages.length === 0) continue;
    const t0 = performance.now();
    // Two entries with one uid in a batch would make ON CONFLICT update a row twice: keep the last.
    const rows = new Map<string, unknown[]>();
    for (const m of messages) {
      const row = eventRow(m.message);
      rows.set(row[0], row);
    }
    const values = [...rows.values()];
    // One statement commits by itself (autocommit): no BEGIN/COMMIT round trips, as PostgresBolt sends it.
    await db.query({ name: 'upsert', text: UPSERT, values: [values.map((r) => r[0]), values.map((r) => r[1]), values.map((r) => r[2])] });
    await redis.xAck(stream, group, messages.map((m) => m.id));
    committed += messages.length;
    cpuAtFirst ??= { cpu: cpuNow(), rows: committed };
    batchMs.push(performance.now() - t0);
  }
  redis.destroy();
  await db.end();
}

const setup = await createClient({ url: redisUrl }).connect();
await setup.xGroupCreate(stream, group, '0', { MKSTREAM: true }).catch(() => undefined);
setup.destroy();
await Promise.all(Array.from({ length: Number(parallelism) }, (_, i) => consumer(`c${i}`)));
// A let TypeScript narrowed to null at its declaration: read it back through its type.
const first = cpuAtFirst as { cpu: number; rows: number } | null;
const cpuUsPerRow = first && committed > first.rows ? (cpuNow() - first.cpu) / (committed - first.rows) : null;
process.stdout.write(`${JSON.stringify({ batchMs, cpuUsPerRow })}\n`);
