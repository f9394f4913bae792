/**
 * What grew between two V8 heap snapshots (`.heapsnapshot` files, written by
 * nimbus on `--heapsnapshot-signal` during the scale soak): per constructor,
 * the number of objects and their own size, as DevTools' "Comparison" view
 * shows them. A snapshot of a few hundred MB of heap is a JSON file of about
 * the same size, too large to hand to JSON.parse whole; only its header and
 * its string table are parsed as JSON, and the nodes array is read number by
 * number straight from the bytes (the edges are not needed for shallow sizes).
 */
import { readFileSync } from 'node:fs';

export interface ConstructorTotals {
  count: number;
  selfBytes: number;
}

export interface GrowthRow {
  name: string;
  countBefore: number;
  countAfter: number;
  selfMbBefore: number;
  selfMbAfter: number;
  grewMb: number;
}

interface SnapshotMeta {
  node_fields: string[];
  node_types: [string[], ...unknown[]];
}

/** The group an object belongs to: its constructor, or for V8's own kinds "(kind) name" as DevTools shows them. */
function groupOf(type: string, name: string): string {
  switch (type) {
    case 'object':
      return name;
    case 'string':
    case 'concatenated string':
    case 'sliced string':
      return '(string)';
    case 'number':
      return '(heap number)';
    case 'code':
      return '(compiled code)';
    case 'closure':
      return `(closure) ${name || 'anonymous'}`;
    default:
      return `(${type}) ${name.slice(0, 60)}`;
  }
}

/** Reads the non-negative integers of the JSON array that starts at `from` (just past its `[`), calling `take` with each. */
function scanIntegers(buf: Buffer, from: number, take: (value: number) => void): number {
  let value = 0;
  let inNumber = false;
  for (let i = from; i < buf.length; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      inNumber = true;
    } else {
      if (inNumber) take(value);
      value = 0;
      inNumber = false;
      if (c === 93) return i; // ]
    }
  }
  throw new Error('heap snapshot: nodes array not closed');
}

/** Object count and own size per constructor in one snapshot file. */
export function summarizeSnapshot(file: string): Map<string, ConstructorTotals> {
  const buf = readFileSync(file);
  const nodesAt = buf.indexOf('"nodes":[');
  const stringsAt = buf.lastIndexOf('"strings":[');
  if (nodesAt < 0 || stringsAt < 0) throw new Error(`${file}: not a V8 heap snapshot (no nodes or strings array)`);
  const header = JSON.parse(`${buf.toString('utf8', 0, nodesAt).replace(/,\s*$/, '')}}`) as { snapshot: { meta: SnapshotMeta } };
  const meta = header.snapshot.meta;
  const width = meta.node_fields.length;
  const typeField = meta.node_fields.indexOf('type');
  const nameField = meta.node_fields.indexOf('name');
  const sizeField = meta.node_fields.indexOf('self_size');
  const types = meta.node_types[0];
  const end = buf.lastIndexOf(']');
  const strings = JSON.parse(buf.toString('utf8', stringsAt + '"strings":'.length, end + 1)) as string[];
  const totals = new Map<string, ConstructorTotals>();
  let field = 0;
  let type = 0;
  let name = 0;
  scanIntegers(buf, nodesAt + '"nodes":['.length, (v) => {
    if (field === typeField) type = v;
    else if (field === nameField) name = v;
    if (field === sizeField) {
      const key = groupOf(types[type] ?? 'unknown', strings[name] ?? '');
      const t = totals.get(key);
      if (t) {
        t.count++;
        t.selfBytes += v;
      } else totals.set(key, { count: 1, selfBytes: v });
    }
    field = (field + 1) % width;
  });
  return totals;
}

/** The constructors whose own size grew most from `before` to `after`, largest growth first. */
export function largestGrowth(before: ReadonlyMap<string, ConstructorTotals>, after: ReadonlyMap<string, ConstructorTotals>, top = 15): GrowthRow[] {
  const mb = (b: number): number => Math.round((b / 2 ** 20) * 100) / 100;
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names]
    .map((name) => {
      const a = before.get(name) ?? { count: 0, selfBytes: 0 };
      const b = after.get(name) ?? { count: 0, selfBytes: 0 };
      return { name, countBefore: a.count, countAfter: b.count, selfMbBefore: mb(a.selfBytes), selfMbAfter: mb(b.selfBytes), grewMb: mb(b.selfBytes - a.selfBytes), bytes: b.selfBytes - a.selfBytes };
    })
    .sort((x, y) => y.bytes - x.bytes)
    .slice(0, top)
    .map(({ bytes: _bytes, ...row }) => row);
}

/** Total own size (MB) of every object in a summary. */
export function totalMb(s: ReadonlyMap<string, ConstructorTotals>): number {
  let bytes = 0;
  for (const t of s.values()) bytes += t.selfBytes;
  return Math.round((bytes / 2 ** 20) * 10) / 10;
}
