/**
 * Prepares the example's data: the counts table in PostgreSQL (PG* variables),
 * each user's country in a Redis hash, and `--events N` page views (a few of
 * them malformed, to show them dropped) appended to the stream.
 *
 *   node dist/examples/redis-to-postgres/seed.js [--events 20000] [--redis redis://127.0.0.1:6379]
 */
import pg from 'pg';
import { createClient } from 'redis';
import { COUNTRY_HASH, COUNTS_TABLE_SQL, EVENTS_STREAM } from './page-views.js';

const COUNTRIES = ['de', 'fr', 'jp', 'br', 'ng', 'in'];
const PAGES = ['/', '/pricing', '/docs', '/blog', '/signup'];
const USERS = 200;

export async function seed(opts: { events: number; redisUrl: string; pg?: pg.ClientConfig }): Promise<void> {
  const db = new pg.Client(opts.pg ?? {});
  await db.connect();
  try {
    await db.query(COUNTS_TABLE_SQL);
  } finally {
    await db.end();
  }
  const redis = await createClient({ url: opts.redisUrl }).connect();
  try {
    // Users u0 … u189 have a country; the last ten have none (the lookup gives null, counted as "unknown").
    const countries: Record<string, string> = {};
    for (let u = 0; u < USERS - 10; u++) countries[`u${u}`] = COUNTRIES[u % COUNTRIES.length]!;
    await redis.hSet(COUNTRY_HASH, countries);
    for (let i = 0; i < opts.events; i += 1000) {
      const batch = [];
      for (let j = i; j < Math.min(opts.events, i + 1000); j++) {
        // Every 500th event is malformed (no page): the parse bolt drops it.
        const event: Record<string, string> = j % 500 === 499 ? { user: `u${j % USERS}` } : { user: `u${(j * 7) % USERS}`, page: PAGES[j % PAGES.length]! };
        batch.push(redis.xAdd(EVENTS_STREAM, '*', event));
      }
      await Promise.all(batch);
    }
  } finally {
    redis.destroy();
  }
}

/** What a seed of `events` events leads to: the views per "country page" (malformed events left out). */
export function expectedCounts(events: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let j = 0; j < events; j++) {
    if (j % 500 === 499) continue;
    const u = (j * 7) % USERS;
    const country = u < USERS - 10 ? COUNTRIES[u % COUNTRIES.length]! : 'unknown';
    const key = `${country} ${PAGES[j % PAGES.length]!}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const events = Number(arg('--events') ?? 20_000);
  await seed({ events, redisUrl: arg('--redis') ?? 'redis://127.0.0.1:6379' });
  process.stdout.write(`seeded ${events} page views into the Redis stream "${EVENTS_STREAM}" and created the table\n`);
}
