import { startTestPostgres } from './dist/test/helpers/servers/postgres.js';
import { inTransaction } from './dist/connectors/postgres/postgres-connection.js';
import { insertText } from './dist/connectors/postgres/sql-text.js';
import pg from 'pg';
const p = await startTestPostgres();
const c = new pg.Client({ connectionString: p.url }); await c.connect();
await c.query('CREATE TABLE t (uid text PRIMARY KEY, cents integer NOT NULL, category text NOT NULL)');
const pool = new pg.Pool({ connectionString: p.url, max: 2 });
const text = insertText('t', ['uid', 'cents', 'category'], 500, { kind: 'update', keys: ['uid'], set: ['cents', 'category'] });
let k = 0;
const rows = () => Array.from({ length: 500 }, () => [`u${k++}`, 150, 'X']).flat();
const unnest = 'INSERT INTO t (uid, cents, category) SELECT * FROM unnest($1::text[], $2::integer[], $3::text[]) ON CONFLICT (uid) DO UPDATE SET cents = EXCLUDED.cents, category = EXCLUDED.category';
const cols = () => { const a = [], b = [], cc = []; for (let i = 0; i < 500; i++) { a.push(`u${k++}`); b.push(150); cc.push('X'); } return [a, b, cc]; };
const timeIt = async (label, f) => { const t = performance.now(); for (let i = 0; i < 100; i++) await f(); console.log(label, ((performance.now() - t) / 100).toFixed(2), 'ms/batch'); };
for (let r = 0; r < 2; r++) {
  await timeIt('client BEGIN/INSERT/COMMIT', async () => { await c.query('BEGIN'); await c.query(text, rows()); await c.query('COMMIT'); });
  await timeIt('pool inTransaction       ', () => inTransaction(pool, (cl) => cl.query(text, rows())));
  await timeIt('client unnest            ', async () => { await c.query('BEGIN'); await c.query(unnest, cols()); await c.query('COMMIT'); });
  await timeIt('client unnest prepared   ', async () => { await c.query('BEGIN'); await c.query({ name: 'up', text: unnest, values: cols() }); await c.query('COMMIT'); });
}
await c.end(); await pool.end(); await p.stop();
