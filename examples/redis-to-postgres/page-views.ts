/**
 * The example's own bolts and what it shares with its seed script: the Redis
 * keys and the PostgreSQL table it uses, a parser that drops garbage (logged
 * and counted, never passed on), and a per-key counter.
 */
import { BasicBolt, type BasicOutputCollector, type Conf, type Counter, type OutputFieldsDeclarer, type TopologyContext, type Tuple } from 'hstorm';

/** The stream of page-view events: entries { user, page }. */
export const EVENTS_STREAM = 'page-views';
/** The hash the lookup enriches from: user → country. */
export const COUNTRY_HASH = 'user-country';
/** The table the counts land in, one row per (country, page). */
export const COUNTS_TABLE = 'page_view_counts';
export const COUNTS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${COUNTS_TABLE} (country text NOT NULL, page text NOT NULL, views bigint NOT NULL, PRIMARY KEY (country, page))`;

/** Keeps well-formed events (a user and a page starting with /); anything else is counted and dropped (acked, not passed on). */
export class ParseEvent extends BasicBolt {
  private garbage!: Counter;
  private context!: TopologyContext;

  override prepare(_conf: Conf, context: TopologyContext): void {
    this.context = context;
    this.garbage = context.registerCounter('events.garbage');
  }

  override execute(t: Tuple, c: BasicOutputCollector): void {
    const user = t.getValueByField('user');
    const page = t.getValueByField('page');
    if (typeof user !== 'string' || user === '' || typeof page !== 'string' || !page.startsWith('/')) {
      this.garbage.inc();
      // One line per thousand, with the entry id: the log shows that garbage arrives without drowning in it.
      if (this.garbage.getCount() % 1000 === 1) this.context.log.warn({ id: t.getValueByField('id'), user, page }, 'dropping a malformed page-view event');
      return;
    }
    c.emit([user, page]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['user', 'page']);
  }
}

/**
 * Views per (country, page) since this task started, emitted as a running total with every event (the sink upserts,
 * so the row holds the latest total). A counter in memory: a restarted task counts from zero again, and a replayed
 * event is counted twice — exact counts across failures need a stateful bolt (DESIGN.md §13, State).
 */
export class CountViews extends BasicBolt {
  private readonly counts = new Map<string, number>();

  override execute(t: Tuple, c: BasicOutputCollector): void {
    const country = (t.getValueByField('country') as string | null) ?? 'unknown';
    const page = t.getStringByField('page');
    const key = `${country}\u0000${page}`;
    const views = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, views);
    c.emit([country, page, views]);
  }

  override declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(['country', 'page', 'views']);
  }
}
