import { startTestRedis } from './dist/test/helpers/servers/redis.js';
import { startTestPostgres } from './dist/test/helpers/servers/postgres.js';
import { runLocal } from './dist/cli/local-run.js';
import { createClient } from 'redis';
import pg from 'pg';
const total = Number(process.env.TOTAL ?? 60000);
const [redis, postgres] = await Promise.all([startTestRedis(), startTestPostgres()]);
const c = await createClient({ url: redis.url }).connect();
for (let i = 0; i < total; i += 1000) { const ps = []; for (let j = i; j < i + 1000; j++) ps.push(c.xAdd('s', '*', { uid: 'u' + j, amount: '1.5', category: 'x' })); await Promise.all(ps); }
const db = new pg.Client({ connectionString: postgres.url }); await db.connect();
await db.query('CREATE TABLE t (uid text PRIMARY KEY, cents integer NOT NULL, category text NOT NULL)');
const samples = [];
const extra = JSON.parse(process.env.EXTRA ?? '{}');
const s = await runLocal({ clusterConfig: process.env.PROF ? { 'worker.childopts': ['--cpu-prof', '--cpu-prof-dir=/tmp/hsprof'] } : {}, module: './dist/bench/topologies/redis-to-postgres.js', durationSec: 120, overrides: { 'bench.redis.url': redis.url, 'bench.stream': 's', 'bench.postgres.url': postgres.url, 'bench.table': 't', 'topology.workers': 1, ...extra }, onProgress: (x, t) => samples.push([t, x.acked]), until: (x) => x.acked >= total, drainSec: 2 });
const first = samples.find(([, n]) => n > 0), done = samples.find(([, n]) => n >= total);
console.log(JSON.stringify(extra), JSON.stringify(s.components.store.counters), 'rate', Math.round((total - first[1]) / (done[0] - first[0])), 'p50', s.completeLatencyMs.p50, 'p99', s.completeLatencyMs.p99, 'cap', JSON.stringify(Object.fromEntries(Object.entries(s.components).map(([k, v]) => [k, v.capacity]))));
c.destroy(); await db.end(); await redis.stop(); await postgres.stop();
