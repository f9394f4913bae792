/**
 * Whether the example's Redis and PostgreSQL answer, and if not, how to start
 * them: the example checks before it builds its topology, so that
 * `hstorm local examples/redis-to-postgres` without the servers says what to
 * do instead of a worker logging connection errors.
 */
import { connect } from 'node:net';

/** True when something accepts a TCP connection at host:port within `timeoutMs`. */
export function reachable(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect({ host, port });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

export const HOW_TO_START = `
This example needs a Redis and a PostgreSQL server. On Debian or Ubuntu, as a user that is not root:

  sudo apt-get install redis-server postgresql      # the packages' own services may already run on 6379 and 5432
  redis-server --port 6379 --save '' --appendonly no &
  PGBIN=$(ls -d /usr/lib/postgresql/*/bin | tail -n 1)
  $PGBIN/initdb -D /tmp/hstorm-pg -U hstorm --auth=trust && $PGBIN/postgres -D /tmp/hstorm-pg -p 5432 -k /tmp &

then, from the package directory:

  export PGHOST=127.0.0.1 PGPORT=5432 PGUSER=hstorm PGDATABASE=postgres
  node dist/examples/redis-to-postgres/seed.js --events 20000
  npx hstorm local examples/redis-to-postgres --duration 20
  psql -c 'SELECT * FROM page_view_counts ORDER BY views DESC LIMIT 10'

Other addresses: -c redis.url=redis://host:port for Redis; PostgreSQL takes libpq's variables (PGHOST, PGPORT, PGUSER,
PGDATABASE, PGPASSWORD), read where the workers run, so no password sits in the topology's config.`;
