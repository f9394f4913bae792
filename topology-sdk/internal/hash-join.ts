/**
 * JoinBolt's join of one window (Storm's JoinBolt.hashJoin), as a function of
 * the window's tuples: the window is split by stream; every stream but the
 * first is hashed on its join field once (a build side per stream); the first
 * stream's tuples are the probe records, and each join in order extends every
 * record with the tuples of its stream whose key equals the record's key
 * field — its prior stream's join field — (inner), or with none when there is
 * no match (left). Cost: one pass over the window plus one per join over the
 * records, and the output; never a nested loop over two streams.
 *
 * Storm's rules, kept as they are: a record whose key is null (missing, or
 * its prior stream absent after a left join) is dropped, by a left join too;
 * a build-side tuple with a null key matches nothing; an output field is read
 * from the first tuple of the record (in join order) that has it, from the
 * named stream's when it is qualified, null when none has it.
 */
import type { Tuple } from '../tuple.js';
import { KeyGroups, type FieldSelector } from './join-fields.js';

export type JoinType = 'inner' | 'left';

/** How stream `slot` joins the records built so far. */
export interface JoinStep {
  slot: number;
  type: JoinType;
  /** The key of this stream's tuples (its own join field). */
  key: FieldSelector;
  /** The record's key: the prior stream's join field, read from the record's tuple of that stream. */
  priorKey: FieldSelector;
  /** The slots holding the prior stream (its name compared ignoring case, as Storm's lookup does; normally one). */
  priorSlots: readonly number[];
}

/** One output value: read from the first of `slots` (in join order) whose tuple has it. */
export interface Projection {
  /** Per slot, the selector reading it (one per slot, so each caches the field position of its own stream). */
  readers: readonly { slot: number; field: FieldSelector }[];
}

export interface JoinPlan {
  /** Streams (or source components) in join order; slot 0 is the left, the probe side. */
  streams: readonly string[];
  /** Slot of each stream name. */
  slotOf: ReadonlyMap<string, number>;
  steps: readonly JoinStep[];
  projections: readonly Projection[];
  /** The name a tuple is joined under: its source component or its stream (Selector). */
  nameOf: (t: Tuple) => string;
}

/** A record: one tuple per slot, null where a left join found none. */
type Record = (Tuple | null)[];

/**
 * Joins `tuples` and calls `out` once per joined record with its projected values and the tuples it joined (in join
 * order), in Storm's order: records of the left stream in window order, each extended match by match in the order
 * the matching tuples had in the window. Throws for a tuple of a stream not in the join (Storm's RuntimeException).
 */
export function hashJoin(plan: JoinPlan, tuples: readonly Tuple[], out: (values: unknown[], anchors: Tuple[]) => void): void {
  const width = plan.streams.length;
  const builds: (KeyGroups<Tuple> | undefined)[] = new Array(width);
  for (const s of plan.steps) builds[s.slot] = new KeyGroups<Tuple>();
  let records: Record[] = [];
  for (const t of tuples) {
    const slot = plan.slotOf.get(plan.nameOf(t));
    if (slot === undefined) throw new RangeError(`JoinBolt: a tuple from "${t.sourceComponent}" stream "${t.sourceStreamId}", which is not part of the join (${plan.streams.join(', ')})`);
    if (slot === 0) {
      const r: Record = new Array<Tuple | null>(width).fill(null);
      r[0] = t;
      records.push(r);
      continue;
    }
    const step = plan.steps[slot - 1]!;
    const key = step.key.read(t);
    if (key !== null) builds[slot]!.add(key, t);
  }
  const last = plan.steps.length - 1;
  plan.steps.forEach((step, i) => {
    const build = builds[step.slot]!;
    const next: Record[] = [];
    const final = i === last;
    for (const r of records) {
      const key = priorKey(step, r);
      if (key === null) continue;
      const matches = build.get(key);
      if (matches !== undefined && matches.length > 0) {
        for (const m of matches) {
          // The last join projects each match at once from the record it extends: no copy of the record per output.
          if (final) {
            r[step.slot] = m;
            out(project(plan, r), anchorsOf(r));
          } else {
            const joined = r.slice();
            joined[step.slot] = m;
            next.push(joined);
          }
        }
        r[step.slot] = null;
      } else if (step.type === 'left') {
        if (final) out(project(plan, r), anchorsOf(r));
        else next.push(r);
      }
    }
    records = next;
  });
  // A JoinBolt on one stream alone (no join called): each of its tuples is a record.
  if (plan.steps.length === 0) for (const r of records) out(project(plan, r), anchorsOf(r));
}

function priorKey(step: JoinStep, r: Record): unknown {
  for (const slot of step.priorSlots) {
    const t = r[slot];
    if (!t) continue;
    const v = step.priorKey.read(t);
    if (v !== null) return v;
  }
  return null;
}

function project(plan: JoinPlan, r: Record): unknown[] {
  const values = new Array<unknown>(plan.projections.length);
  for (let i = 0; i < plan.projections.length; i++) {
    let v: unknown = null;
    for (const { slot, field } of plan.projections[i]!.readers) {
      const t = r[slot];
      if (!t) continue;
      v = field.read(t);
      if (v !== null) break;
    }
    values[i] = v;
  }
  return values;
}

function anchorsOf(r: Record): Tuple[] {
  const out: Tuple[] = [];
  for (const t of r) if (t) out.push(t);
  return out;
}
