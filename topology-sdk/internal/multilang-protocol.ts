/**
 * Apache Storm's multilang protocol, JSON serializer (docs/Multilang-protocol.md
 * of Storm; the reference clients are storm.py and storm.js): every message is
 * one JSON value followed by a line holding `end`. This file knows the message
 * shapes and the framing; shell-process.ts runs the subprocess, shell-bolt.ts
 * and shell-spout.ts speak the two dialogues.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ACKER_COMPONENT, DEFAULT_STREAM, SYSTEM_TASK_ID, type GroupingDef, type TopologyDef } from '../../common/topology-def.js';

/** Stream of the heartbeat tuples a ShellBolt sends; the subprocess answers each with `sync`. */
export const HEARTBEAT_STREAM = '__heartbeat';
/** Storm's system task id: the `task` of heartbeat (and tick) tuples. */
export { SYSTEM_TASK_ID };

const id = z.union([z.string(), z.number()]);

/** A message from the subprocess (ShellMsg in Storm), checked field by field so garbage is named, not crashed on. */
export const shellMsgSchema = z.discriminatedUnion('command', [
  z.object({
    command: z.literal('emit'),
    tuple: z.array(z.unknown()),
    stream: z.string().nullish(),
    /** Emit direct: the target task. Storm treats a missing task (or 0) as "not direct". */
    task: z.number().int().nullish(),
    /** Bolts: ids of the input tuples to anchor to (one id may come as a bare string). */
    anchors: z.union([z.string(), z.array(z.string())]).nullish(),
    /** Spouts: the message id; absent for an unreliable emit. */
    id: id.nullish(),
    /** false: do not answer with the list of task ids (Storm 0.9.3+); default true. */
    need_task_ids: z.boolean().nullish(),
  }),
  z.object({ command: z.literal('ack'), id }),
  z.object({ command: z.literal('fail'), id }),
  z.object({ command: z.literal('sync') }),
  z.object({ command: z.literal('log'), msg: z.unknown(), level: z.number().nullish() }),
  z.object({ command: z.literal('error'), msg: z.unknown() }),
  z.object({ command: z.literal('metrics'), name: z.string().min(1), params: z.unknown() }),
]);
export type ShellMsg = z.infer<typeof shellMsgSchema>;
export type EmitMsg = Extract<ShellMsg, { command: 'emit' }>;

export const pidMsgSchema = z.object({ pid: z.number().int().positive() });

/** Why a line of output could not be taken as a message. */
export class ShellProtocolError extends Error {}

/**
 * Parses one framed message. The handshake answer and task-id lists are not
 * commands, so callers pass the schema they expect.
 */
export function parseShellMsg(text: string): ShellMsg {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ShellProtocolError(`not JSON: ${preview(text)} (${(err as Error).message})`);
  }
  const r = shellMsgSchema.safeParse(raw);
  if (!r.success) {
    const command = (raw as { command?: unknown } | null)?.command;
    const why = typeof command === 'string' && !['emit', 'ack', 'fail', 'sync', 'log', 'error', 'metrics'].includes(command)
      ? `unknown command "${command}" (allowed: emit, ack, fail, sync, log, error, metrics)`
      : r.error.issues.map((i) => `${i.path.join('.') || 'message'}: ${i.message}`).join('; ');
    throw new ShellProtocolError(`bad message ${preview(text)}: ${why}`);
  }
  return r.data;
}

export function parsePidMsg(text: string): number {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ShellProtocolError(`handshake answer is not JSON: ${preview(text)} (expected {"pid": <number>})`);
  }
  const r = pidMsgSchema.safeParse(raw);
  if (!r.success) throw new ShellProtocolError(`handshake answer ${preview(text)} is not {"pid": <number>}`);
  return r.data.pid;
}

export function preview(text: string, max = 200): string {
  const t = JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
  return t;
}

/**
 * JSON of a value for the subprocess. Tuple values that JSON has no form for
 * become the nearest thing a Python or JavaScript client can use: typed arrays
 * and Buffers → arrays of numbers, bigints → decimal strings (as Storm sends
 * 64-bit ids), Maps → objects, Sets → arrays.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (ArrayBuffer.isView(v)) return v instanceof DataView ? [...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)] : Array.from(v as unknown as ArrayLike<number | bigint>, (x) => (typeof x === 'bigint' ? x.toString() : x));
    if (v instanceof Map) return Object.fromEntries(v);
    if (v instanceof Set) return [...v];
    return v;
  });
}

/** One framed message: the JSON, then a line `end` (storm.py and storm.js both read this form). */
export function frame(value: unknown): string {
  return `${toJson(value)}\nend\n`;
}

/** Storm's tuple and heartbeat ids: a random signed 64-bit integer as a decimal string. */
export function randomTupleId(): string {
  return randomBytes(8).readBigInt64BE().toString();
}

/**
 * Splits a stream of lines into messages: lines are gathered until a line
 * `end` (the delimiter is not JSON). `maxChars` bounds a message that never
 * ends (a subprocess printing without the protocol), so memory stays bounded.
 */
export class MessageFramer {
  private lines: string[] = [];
  private chars = 0;

  constructor(private readonly maxChars = 64 * 1024 * 1024) {}

  /** Returns the message text when `line` ends one, else null; throws when a message grows past the limit. */
  push(line: string): string | null {
    const l = line.endsWith('\r') ? line.slice(0, -1) : line;
    if (l === 'end') {
      const text = this.lines.join('\n');
      this.lines = [];
      this.chars = 0;
      return text;
    }
    this.lines.push(l);
    this.chars += l.length + 1;
    if (this.chars > this.maxChars) {
      const head = this.lines[0] ?? '';
      this.lines = [];
      this.chars = 0;
      throw new ShellProtocolError(`a message grew past ${this.maxChars} characters without an "end" line (starts ${preview(head)})`);
    }
    return null;
  }

  /** Text read since the last complete message (for the log when the process dies). */
  get partial(): string {
    return this.lines.join('\n');
  }
}

/** Storm's names of groupings in the context (Grouping._Fields, upper case); a global grouping is Storm's FIELDS with no fields. */
function stormGrouping(g: GroupingDef): { type: string; fields?: string[] } {
  switch (g.type) {
    case 'fields':
      return { type: 'FIELDS', fields: [...g.fields] };
    case 'global':
      return { type: 'FIELDS', fields: [] };
    case 'localOrShuffle':
      return { type: 'LOCAL_OR_SHUFFLE' };
    case 'partialKey':
    case 'custom':
      // Storm's PartialKeyGrouping is a custom grouping, and a custom grouping object travels serialized.
      return { type: 'CUSTOM_SERIALIZED' };
    default:
      // shuffle, none, all, direct, and groupings added later: camelCase → SNAKE_CASE.
      return { type: (g as { type: string }).type.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase() };
  }
}

/**
 * The `context` of the handshake, as Storm's TopologyContext.toJSONString
 * writes it: task→component of the whole topology, this task and component,
 * its output streams and fields, and the groupings in and out.
 */
export function stormContextJson(
  def: TopologyDef,
  componentId: string,
  taskId: number,
  tasksOf: (component: string) => readonly number[],
): Record<string, unknown> {
  const taskToComponent: Record<string, string> = {};
  for (const c of [...def.components.map((c) => c.id), ACKER_COMPONENT]) {
    for (const t of tasksOf(c)) taskToComponent[String(t)] = c;
  }
  const me = def.components.find((c) => c.id === componentId);
  const streamToOutputFields: Record<string, string[]> = {};
  for (const s of me?.streams ?? []) streamToOutputFields[s.id] = [...s.fields];
  const targets: Record<string, Record<string, unknown>> = {};
  for (const c of def.components) {
    for (const input of c.inputs) {
      if (input.component !== componentId) continue;
      (targets[input.stream] ??= {})[c.id] = stormGrouping(input.grouping);
    }
  }
  const sources: Record<string, Record<string, unknown>> = {};
  const sourceFields: Record<string, Record<string, string[]>> = {};
  for (const input of me?.inputs ?? []) {
    (sources[input.component] ??= {})[input.stream] = stormGrouping(input.grouping);
    const fields = def.components.find((c) => c.id === input.component)?.streams.find((s) => s.id === input.stream)?.fields ?? [];
    (sourceFields[input.component] ??= {})[input.stream] = [...fields];
  }
  return {
    'task->component': taskToComponent,
    taskid: taskId,
    componentid: componentId,
    streams: Object.keys(streamToOutputFields),
    'stream->outputfields': streamToOutputFields,
    'stream->target->grouping': targets,
    'source->stream->grouping': sources,
    'source->stream->fields': sourceFields,
  };
}

export { DEFAULT_STREAM };
