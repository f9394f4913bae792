/**
 * Storm's FeederSpout (org.apache.storm.testing.FeederSpout): a spout a test
 * feeds by hand — `feed(values)`, `feed(values, msgId)` — whose acks and fails
 * come back to an `AckFailDelegate` in the test. Storm's reaches its tasks
 * through an in-process queue (InprocMessaging), so it works only in local
 * mode; hstorm's tasks run in worker processes, so the FeederSpout object is
 * the test's end of a channel and each task makes its own spout
 * ([NEW_TASK]). LocalCluster.submitTopology connects the two
 * ([CONNECT_LOCAL]) through files in the cluster's data directory: the test
 * appends what it feeds to one file, each task reads it (task i of n takes
 * every n-th tuple, as Storm's tasks share one queue) and appends the fates of
 * its message ids to a file of its own, which the test reads every 20 ms and
 * hands to the delegate. A restarted task goes on after the last tuple it
 * emitted. Values cross as the wire carries them: a Map stays a Map, a
 * registered class its class; the delegate gets a copy of each message id.
 *
 * @example
 * // topology module
 * export const genderSpout = new FeederSpout(['id', 'gender']);
 * export default () => { const b = new TopologyBuilder(); b.setSpout('genderSpout', genderSpout); … return b.createTopology(); };
 * // test
 * await cluster.submitTopology('join', {}, topology());
 * genderSpout.setAckFailDelegate({ ack: (id) => acked.push(id), fail: (id) => failed.push(id) });
 * genderSpout.feed([1, 'male']);
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Spout, type Conf, type OutputFieldsDeclarer, type SpoutOutputCollector, type TopologyContext, type Values } from '../topology-sdk/index.js';
import { fieldNames, type Fields } from '../topology-sdk/fields.js';
import { CONNECT_LOCAL, NEW_TASK, type LocalConnection, type LocalEndpoint, type TaskSource } from '../topology-sdk/internal/component-source.js';
import { FeederNotConnectedError } from '../common/errors.js';
import { inspectValues, toWireForm, ValueRefusal, ValueTypes } from '../worker/index.js';
import { RecordReader, appendRecord } from './record-file.js';

/** Storm's AckFailDelegate: told the fate of each message id fed. */
export interface AckFailDelegate {
  ack(id: unknown): void;
  fail(id: unknown): void;
}

/** The topology config key naming a feeder component's channel (a user key: outside hstorm's reserved prefixes). */
export function feederConfigKey(component: string): string {
  return `testing.feeder.${component}`;
}

const FEED_FILE = 'feed.bin';
const ACKS = /^acks-(-?\d+)\.bin$/;
const POLL_MS = 20;

export class FeederSpout implements TaskSource<Spout>, LocalEndpoint {
  private readonly outFields: readonly string[];
  private delegate: AckFailDelegate | null = null;
  /** The channel of the submission it is connected to; null before. */
  private dir: string | null = null;
  private types = new ValueTypes();
  /** Fed before it was connected: written when it is. */
  private early: [values: readonly unknown[], msgId: unknown][] = [];
  private poll: NodeJS.Timeout | null = null;
  private readonly ackReaders = new Map<string, RecordReader>();

  constructor(outFields: Fields | readonly string[]) {
    this.outFields = [...fieldNames(outFields, 'new FeederSpout')];
  }

  /** Storm's setAckFailDelegate: `d.ack(id)` / `d.fail(id)` for each message id fed, in this process. */
  setAckFailDelegate(d: AckFailDelegate): void {
    this.delegate = d;
  }

  /** Emits `values` once, tracked under a random UUID (Storm's). */
  feed(values: Values | readonly unknown[]): void;
  /** Emits `values` once, tracked under `msgId`. */
  feed(values: Values | readonly unknown[], msgId: unknown): void;
  feed(values: Values | readonly unknown[], msgId: unknown = randomUUID()): void {
    if (!Array.isArray(values)) throw new TypeError(`FeederSpout.feed: the values must be an array (or Values), got ${typeof values}`);
    if (values.length !== this.outFields.length) {
      throw new TypeError(`FeederSpout.feed: ${values.length} values for the ${this.outFields.length} fields it declares (${this.outFields.join(', ')})`);
    }
    if (msgId === null || msgId === undefined) throw new TypeError('FeederSpout.feed: a message id must not be null or undefined (leave it out for a random one)');
    if (this.dir === null) this.early.push([[...(values as unknown[])], msgId]);
    else this.write(values, msgId);
  }

  /** Storm's feedNoWait: feed never waits here. */
  feedNoWait(values: Values | readonly unknown[], msgId: unknown): void {
    this.feed(values, msgId);
  }

  /** Storm's waitForReader: resolves once a task of the connected topology has opened (and reads what is fed). */
  async waitForReader(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.dir !== null && readers(this.dir) > 0) return;
      if (Date.now() > deadline) throw new FeederNotConnectedError(`FeederSpout: no task opened within ${timeoutMs} ms${this.dir === null ? ' (it is not connected: submit its topology with LocalCluster.submitTopology)' : ''}`, '');
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }

  /** One task's spout (the builder calls this per task, in the worker). */
  [NEW_TASK](): Spout {
    return new FeederSpoutTask(this.outFields);
  }

  /** LocalCluster.submitTopology: the test's end of a new channel; the config tells the tasks where it is. */
  [CONNECT_LOCAL](c: LocalConnection): Record<string, unknown> {
    mkdirSync(c.dir, { recursive: true });
    writeFileSync(join(c.dir, FEED_FILE), '');
    if (this.poll) clearInterval(this.poll);
    for (const r of this.ackReaders.values()) r.close();
    this.ackReaders.clear();
    this.types = new ValueTypes(c.serializations);
    this.dir = c.dir;
    for (const [values, msgId] of this.early) this.write(values, msgId);
    this.early = [];
    this.poll = setInterval(() => this.pollFates(), POLL_MS);
    this.poll.unref();
    return { [feederConfigKey(c.componentId)]: c.dir };
  }

  private write(values: readonly unknown[], msgId: unknown): void {
    let wire: readonly unknown[];
    try {
      wire = inspectValues(values, this.types) ? toWireForm(values, this.types) : values;
    } catch (err) {
      if (err instanceof ValueRefusal) throw new TypeError(`FeederSpout.feed: value ${err.index} is ${err.message}, which cannot travel to a worker; ${err.hint}`);
      throw err;
    }
    appendRecord(join(this.dir!, FEED_FILE), [wire, msgId]);
  }

  /** The fates the tasks wrote since the last poll, to the delegate. */
  private pollFates(): void {
    const dir = this.dir;
    if (dir === null) return;
    let files: string[];
    try {
      files = readdirSync(dir);
    } catch {
      // The cluster shut down and took its data directory with it: nothing more will come.
      if (this.poll) clearInterval(this.poll);
      this.poll = null;
      return;
    }
    for (const f of files) {
      if (!ACKS.test(f)) continue;
      let reader = this.ackReaders.get(f);
      if (!reader) this.ackReaders.set(f, (reader = new RecordReader(join(dir, f))));
      for (const { record } of reader.read()) {
        const [acked, id] = record as [boolean, unknown];
        try {
          if (acked) this.delegate?.ack(id);
          else this.delegate?.fail(id);
        } catch (err) {
          process.emitWarning(`FeederSpout: the AckFailDelegate threw: ${(err as Error)?.message ?? String(err)}`);
        }
      }
    }
  }
}

/** Tasks that opened on the channel in `dir` (none when it is gone: the cluster shut down). */
function readers(dir: string): number {
  try {
    return readdirSync(dir).filter((f) => f.startsWith('reader-')).length;
  } catch {
    return 0;
  }
}

/** Where a task has got to in the feed: the file offset after its last emitted tuple and the index of the next one. */
interface Position {
  offset: number;
  next: number;
}

/** A FeederSpout's task, in a worker: reads its share of the feed and writes back the fate of each tuple. */
class FeederSpoutTask extends Spout {
  private collector!: SpoutOutputCollector;
  private reader!: RecordReader;
  private ackFile = '';
  private positionFile = '';
  private tasks = 1;
  private index = 0;
  private next = 0;
  private readonly queue: { values: unknown[]; msgId: unknown; end: number; index: number }[] = [];

  constructor(private readonly outFields: readonly string[]) {
    super();
  }

  override open(conf: Conf, ctx: TopologyContext, collector: SpoutOutputCollector): void {
    const dir = conf[feederConfigKey(ctx.componentId)];
    if (typeof dir !== 'string') {
      throw new FeederNotConnectedError(
        `FeederSpout "${ctx.componentId}" has no test to feed it: as Storm's, it runs only in a LocalCluster, its topology submitted with LocalCluster.submitTopology(name, conf, topology) by the process that calls feed()`,
        ctx.componentId,
      );
    }
    this.collector = collector;
    this.tasks = ctx.componentTasks.length;
    this.index = ctx.taskIndex;
    this.positionFile = join(dir, `position-${this.index}.json`);
    const at: Position = existsSync(this.positionFile) ? (JSON.parse(readFileSync(this.positionFile, 'utf8')) as Position) : { offset: 0, next: 0 };
    this.next = at.next;
    this.reader = new RecordReader(join(dir, FEED_FILE), at.offset);
    this.ackFile = join(dir, `acks-${ctx.taskId}.bin`);
    writeFileSync(join(dir, `reader-${this.index}`), '');
  }

  nextTuple(): void {
    if (this.queue.length === 0) {
      for (const { record, end } of this.reader.read()) {
        const index = this.next++;
        if (index % this.tasks !== this.index) continue;
        const [values, msgId] = record as [unknown[], unknown];
        this.queue.push({ values, msgId, end, index });
      }
    }
    const t = this.queue.shift();
    if (!t) return;
    this.collector.emit(t.values, { messageId: t.msgId });
    writeFileSync(this.positionFile, JSON.stringify({ offset: t.end, next: t.index + 1 } satisfies Position));
  }

  override ack(msgId: unknown): void {
    appendRecord(this.ackFile, [true, msgId]);
  }

  override fail(msgId: unknown): void {
    appendRecord(this.ackFile, [false, msgId]);
  }

  override close(): void {
    this.reader?.close();
  }

  declareOutputFields(d: OutputFieldsDeclarer): void {
    d.declare(this.outFields);
  }
}
