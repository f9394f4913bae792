/**
 * What completeTopology reads back: every tuple each component emitted, on every stream (direct ones too), with its
 * values' real types. Inside every worker, each component's collector is wrapped (wrap-topology.ts) so that an emit
 * that succeeds is also written to `<capture dir>/capture-<task>.bin`, the emitting task's file: one record per
 * emit, a 4-byte length then the record in the wire codec's format (values in their wire form, so a Map, a Date or
 * a registered class comes back as one). Storm captures through a bolt subscribed to every stream, which cannot
 * see direct emits to other bolts; the emitter sees all of them.
 */
import { appendFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BasicBolt, Bolt, Spout, type BasicOutputCollector, type OutputCollector, type SpoutOutputCollector } from '../topology-sdk/index.js';
import { readEmitArgs, type CollectorKind } from '../topology-sdk/internal/emit-args.js';
import { CHECKPOINT_STREAM } from '../common/topology-def.js';
import { decodeRecord, decodingWith, encodeRecord, inspectValues, toWireForm, type ValueTypes } from '../worker/index.js';

/** Config key of the capture directory (a user key: outside hstorm's reserved prefixes). */
export const CAPTURE_DIR_KEY = 'testing.capture.dir';

/** One emit, as captured. */
export interface CapturedTuple {
  component: string;
  stream: string;
  /** The emitting task. */
  task: number;
  /** emitDirect: the task it was sent to; null for an emit by grouping. */
  directTask: number | null;
  values: unknown[];
}

type Record5 = [component: string, stream: string, task: number, directTask: number | null, values: unknown[]];

/** Appends captured emits to one task's file. */
class CaptureFile {
  constructor(
    private readonly file: string,
    private readonly types: ValueTypes,
  ) {}

  write(component: string, task: number, kind: CollectorKind, args: unknown[], directTask: number | null): void {
    // The emit succeeded, so its arguments are one of the forms and its values can travel.
    const e = readEmitArgs(kind, component, args[0], args[1], args[2], directTask === null ? 'emit' : 'emitDirect');
    // A stateful topology's checkpoint stream is the runtime's traffic (the checkpoint spout's, forwarded by every
    // bolt), not what a component emitted.
    if (e.stream === CHECKPOINT_STREAM) return;
    const values = inspectValues(e.values, this.types) ? toWireForm(e.values, this.types) : e.values;
    const body = encodeRecord([component, e.stream, task, directTask, values] satisfies Record5);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    appendFileSync(this.file, Buffer.concat([head, body]));
  }
}

/**
 * Wraps a component instance so that every emit it makes is captured: a spout's collector from open, a bolt's from
 * prepare, a basic bolt's per execute. The instance is the same object (the executor's kind checks still hold).
 */
export function captureEmits<T extends object>(instance: T, component: string, dir: string, types: ValueTypes): T {
  const fileOf = (task: number) => new CaptureFile(join(dir, `capture-${task}.bin`), types);
  if (instance instanceof Spout) {
    const open = instance.open.bind(instance);
    instance.open = (conf, ctx, collector) => open(conf, ctx, wrap(collector, 'spout', component, ctx.taskId, fileOf(ctx.taskId)));
  } else if (instance instanceof BasicBolt) {
    const prepare = instance.prepare.bind(instance);
    const execute = instance.execute.bind(instance);
    let file: CaptureFile | null = null;
    let task = -1;
    instance.prepare = (conf, ctx) => {
      task = ctx.taskId;
      file = fileOf(task);
      return prepare(conf, ctx);
    };
    instance.execute = (tuple, collector) => execute(tuple, file ? wrap(collector, 'basic', component, task, file) : collector);
  } else if (instance instanceof Bolt) {
    const prepare = instance.prepare.bind(instance);
    instance.prepare = (conf, ctx, collector) => prepare(conf, ctx, wrap(collector, 'bolt', component, ctx.taskId, fileOf(ctx.taskId)));
  }
  return instance;
}

function wrap<C extends SpoutOutputCollector | OutputCollector | BasicOutputCollector>(collector: C, kind: CollectorKind, component: string, task: number, file: CaptureFile): C {
  const emit = collector.emit.bind(collector) as (...args: unknown[]) => number[];
  const emitDirect = collector.emitDirect.bind(collector) as (...args: unknown[]) => void;
  return Object.assign(Object.create(collector) as C, {
    emit: (...args: unknown[]): number[] => {
      const targets = emit(...args);
      file.write(component, task, kind, args, null);
      return targets;
    },
    emitDirect: (taskId: number, ...args: unknown[]): void => {
      emitDirect(taskId, ...args);
      file.write(component, task, kind, args, taskId);
    },
  });
}

/** Every tuple captured under `dir` so far, task file by task file, each in emit order; registered classes rebuilt from `types`. */
export async function readCaptured(dir: string, types: ValueTypes): Promise<CapturedTuple[]> {
  const out: CapturedTuple[] = [];
  const files = (await readdir(dir)).filter((f) => f.endsWith('.bin')).sort((a, b) => taskOf(a) - taskOf(b));
  for (const f of files) {
    const buf = await readFile(join(dir, f));
    let at = 0;
    // A record still being appended is left for the next read.
    while (at + 4 <= buf.length) {
      const len = buf.readUInt32BE(at);
      if (at + 4 + len > buf.length) break;
      const [component, stream, task, directTask, values] = decodingWith(types, () => decodeRecord(buf.subarray(at + 4, at + 4 + len))) as Record5;
      out.push({ component, stream, task, directTask, values });
      at += 4 + len;
    }
  }
  return out;
}

function taskOf(file: string): number {
  return Number(/capture-(-?\d+)\.bin$/.exec(file)?.[1] ?? 0);
}
