/**
 * A topology against the config it will run with (the topology's, with the
 * `-c` overrides merged): windows that must let their tuples be acked before
 * they time out and fill within what the spouts may have in flight, stateful
 * bolts that must checkpoint within the timeout. Checked by `hstorm local`,
 * `submit` and `schedule` (worker/load-topology.ts) and by nimbus at submit,
 * with the same messages. The definition's own shape: validate-topology.ts.
 */
import { CHECKPOINT_COMPONENT, CHECKPOINT_STREAM, type ComponentDef, type TopologyDef, type WindowDef } from '../common/topology-def.js';
import { StateValidationError, WindowValidationError } from '../common/errors.js';
import { checkKey, type Config } from '../common/config/config.js';
import { formatMs } from '../common/window-text.js';

/**
 * Windowed bolts against the config they will run with (the topology's, with
 * the `-c` overrides merged): a window must let its tuples be acked before
 * they time out, and a count window must fit in what the spouts may have in
 * flight, or its tuples time out and replay for ever. Checked by `hstorm
 * local`, `submit` and `schedule` (worker/load-topology.ts) and by nimbus at
 * submit, with the same message.
 *
 * The spouts that matter are those upstream of the bolt; each may override
 * the timeout or the bound in its own component config, so the tightest
 * governs.
 */
export function validateWindowBounds(def: TopologyDef, config: Config): void {
  const byId = new Map(def.components.map((c) => [c.id, c]));
  validatePendingBounds(def, config, byId);
  for (const c of def.components) {
    if (!c.window) continue;
    // A persistent window's tuples are in the state store, acked at the next checkpoint: the window holds none.
    if (c.state && c.state.maxEventsInMemory !== null) continue;
    const spouts = upstreamSpouts(c, byId);
    const w = c.window;
    const held = heldMs(w, c.state ? config['topology.state.checkpoint.interval.ms'] : 0);
    if (held !== null) {
      const [timeoutSecs, spout] = tightest(spouts, config, 'topology.message.timeout.secs');
      if (timeoutSecs !== null && held.ms > timeoutSecs * 1000) {
        const needed = Math.ceil(held.ms / 1000) + 1;
        throw new WindowValidationError(
          `bolt "${c.id}": its window holds a tuple up to ${formatMs(held.ms)} (${held.terms}), longer than topology.message.timeout.secs = ${timeoutSecs}${spout ? ` (spout "${spout}")` : ''}: ` +
            `its tuples would time out and replay before their last window closes. Raise topology.message.timeout.secs to at least ${needed} (e.g. -c topology.message.timeout.secs=${needed * 2}) or shorten the window`,
          c.id,
          { key: 'topology.message.timeout.secs', value: timeoutSecs, needed },
        );
      }
    }
  }
}

/**
 * A count window fills only when the spouts upstream may have enough tuples in flight, and a window's tuples are
 * in flight until they leave it — and, downstream of another window, until the tuples that window emitted (each
 * anchored to a whole window of its input) leave this one: every count window on the path counts. Of the windows
 * that cannot fill, the message names the one that needs most, so its advice is a bound under which all run.
 */
function validatePendingBounds(def: TopologyDef, config: Config, byId: ReadonlyMap<string, ComponentDef>): void {
  if (effectiveAckers(config) === 0) return;
  let worst: { c: ComponentDef; need: InFlight; pending: number; spout: string | null } | null = null;
  for (const c of def.components) {
    const w = c.window;
    // A persistent window's tuples are in the state store, acked at the next checkpoint: the window holds none.
    if (!w || w.length.unit !== 'count' || isPersistent(c)) continue;
    const [pending, spout] = tightest(upstreamSpouts(c, byId), config, 'topology.max.spout.pending');
    const behind = inputsInFlight(c, w.length.value, byId, new Set([c.id]));
    const need: InFlight = behind !== null && behind.tuples > w.length.value ? behind : { tuples: w.length.value, via: [] };
    if (pending !== null && need.tuples > pending && (worst === null || need.tuples > worst.need.tuples)) worst = { c, need, pending, spout };
  }
  if (worst === null) return;
  const { c, need, pending, spout } = worst;
  const length = c.window!.length.value;
  const why =
    need.via.length === 0
      ? `its count window holds ${length} tuples`
      : `its count window holds ${length} tuples of ${need.via.map((v) => `"${v}"`).join(' ← ')}, each anchored to a window of its input, so ${need.tuples} spout tuples stay in flight until they leave it`;
  throw new WindowValidationError(
    `bolt "${c.id}": ${why}, more than topology.max.spout.pending = ${pending}${spout ? ` (spout "${spout}")` : ''} lets be in flight: ` +
      `the window would never fill, and its tuples would time out and replay. Raise topology.max.spout.pending to at least ${need.tuples} (e.g. -c topology.max.spout.pending=${need.tuples * 2}) or shrink the window${need.via.length ? 's' : ''}`,
    c.id,
    { key: 'topology.max.spout.pending', value: pending, needed: need.tuples },
  );
}

/** Spout tuples in flight behind some tuples, and the windows on the way (nearest first). */
interface InFlight {
  tuples: number;
  via: string[];
}

function isPersistent(c: ComponentDef): boolean {
  return c.state !== undefined && c.state !== null && c.state.maxEventsInMemory !== null;
}

/**
 * Spout tuples in flight while `n` consecutive input tuples of `c` are held (the worst of its inputs); null when
 * a window upstream is not counted in tuples (a time window: how many tuples it holds depends on the rate).
 */
function inputsInFlight(c: ComponentDef, n: number, byId: ReadonlyMap<string, ComponentDef>, visiting: Set<string>): InFlight | null {
  let worst: InFlight = { tuples: 0, via: [] };
  for (const input of c.inputs) {
    if (input.stream === CHECKPOINT_STREAM) continue;
    const f = outputsInFlight(input.component, n, byId, visiting);
    if (f === null) return null;
    if (f.tuples > worst.tuples) worst = f;
  }
  return worst;
}

/**
 * Spout tuples in flight while `k` consecutive tuples `id` emitted are held downstream. A spout's tuple is itself; a
 * bolt passes its input's (one tuple out per tuple in, the common case); a count window's k outputs are anchored to
 * length + (k − 1) × slide of its input tuples (windows overlap by length − slide; with a slide past the length the
 * tuples between windows are acked at once); a persistent window's outputs to none (its emits are unanchored).
 */
function outputsInFlight(id: string, k: number, byId: ReadonlyMap<string, ComponentDef>, visiting: Set<string>): InFlight | null {
  const c = byId.get(id);
  if (!c) return null;
  if (c.kind === 'spout') return { tuples: k, via: [] };
  if (visiting.has(id)) return null;
  const w = c.window;
  if (w && isPersistent(c)) return { tuples: 0, via: [] };
  if (w && (w.length.unit !== 'count' || w.slide.unit !== 'count')) return null;
  const span = w ? w.length.value + (k - 1) * Math.min(w.slide.value, w.length.value) : k;
  visiting.add(id);
  try {
    const behind = inputsInFlight(c, span, byId, visiting);
    return behind && (w ? { tuples: behind.tuples, via: [id, ...behind.via] } : behind);
  } finally {
    visiting.delete(id);
  }
}

/**
 * How long a window may hold a tuple, in ms, and of what: null when it is not bounded by time (a count length and
 * slide). A stateful window then holds its ack until the next checkpoint commits (`checkpointMs`).
 */
function heldMs(w: WindowDef, checkpointMs: number): { ms: number; terms: string } | null {
  const terms: [string, number][] = [];
  if (w.length.unit === 'ms') terms.push(['length', w.length.value]);
  if (w.slide.unit === 'ms') terms.push(['slide', w.slide.value]);
  if (terms.length === 0) return null;
  // Event time: a window closes once the watermark — lag behind the newest tuple, computed every interval — passes it.
  if (w.eventTime) terms.push(['lag', w.lagMs], ['watermark interval', w.watermarkIntervalMs]);
  if (checkpointMs > 0) terms.push(['checkpoint interval', checkpointMs]);
  const shown = terms.filter(([, ms]) => ms > 0);
  return { ms: terms.reduce((s, [, ms]) => s + ms, 0), terms: shown.map(([n, ms]) => `${n} ${formatMs(ms)}`).join(' + ') };
}

function upstreamSpouts(c: ComponentDef, byId: ReadonlyMap<string, ComponentDef>): ComponentDef[] {
  const seen = new Set<string>();
  const spouts: ComponentDef[] = [];
  const stack = c.inputs.map((i) => i.component);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const up = byId.get(id);
    if (!up) continue;
    if (up.kind === 'spout') spouts.push(up);
    else stack.push(...up.inputs.map((i) => i.component));
  }
  return spouts;
}

type BoundKey = 'topology.message.timeout.secs' | 'topology.max.spout.pending';

/** A spout's value of a key: its component config over the topology's. */
function effective(spout: ComponentDef, config: Config, key: BoundKey): number | null {
  return Object.hasOwn(spout.config, key) ? checkKey(key, spout.config[key], `component "${spout.id}" config`) : config[key];
}

function effectiveAckers(config: Config): number | null {
  return config['topology.acker.executors'];
}

/**
 * The smallest value over the spouts, and the spout whose own config sets it (null when the topology's value
 * governs). Without a spout upstream, the topology's.
 */
function tightest(spouts: readonly ComponentDef[], config: Config, key: BoundKey): [number | null, string | null] {
  if (spouts.length === 0) return [config[key], null];
  let best: [number | null, string | null] = [null, null];
  for (const s of spouts) {
    const v = effective(s, config, key);
    if (v !== null && (best[0] === null || v < best[0] || (v === best[0] && best[1] === null))) best = [v, Object.hasOwn(s.config, key) ? s.id : null];
  }
  return best;
}

/**
 * A topology with stateful bolts against the config it will run with, at the same points as the window bounds: a
 * stateful bolt acks its input only at the checkpoint after it, so `topology.state.checkpoint.interval.ms` must be
 * below every spout's `topology.message.timeout.secs` (Storm checks the same); checkpoints complete through acks, so
 * acking must be on. The checkpoint spout the builder added must be the one it adds.
 */
export function validateStateBounds(def: TopologyDef, config: Config): void {
  const stateful = def.components.filter((c) => c.state);
  const cp = def.components.find((c) => c.id === CHECKPOINT_COMPONENT);
  if (stateful.length === 0 && !cp) return;
  if (!cp || cp.kind !== 'spout' || cp.parallelism !== 1 || stateful.length === 0 || cp.streams.length !== 1 || cp.streams[0]!.id !== CHECKPOINT_STREAM) {
    throw new StateValidationError(`a topology with stateful bolts has one "${CHECKPOINT_COMPONENT}" spout of one task, added by TopologyBuilder; this definition ${cp ? 'has another one' : 'lacks it'}: build it with TopologyBuilder`);
  }
  const first = stateful[0]!.id;
  if (effectiveAckers(config) === 0) {
    throw new StateValidationError(
      `bolt "${first}" is stateful, and checkpoints complete through acks, but topology.acker.executors = 0 turns acking off: remove that setting (or set it ≥ 1)`,
      first,
      { key: 'topology.acker.executors', value: 0 },
    );
  }
  const interval = config['topology.state.checkpoint.interval.ms'];
  const [timeoutSecs, spout] = tightest(def.components.filter((c) => c.kind === 'spout'), config, 'topology.message.timeout.secs');
  if (timeoutSecs !== null && interval >= timeoutSecs * 1000) {
    throw new StateValidationError(
      `bolt "${first}" is stateful: topology.state.checkpoint.interval.ms = ${interval} is not below topology.message.timeout.secs = ${timeoutSecs}${spout ? ` (spout "${spout}")` : ''}. ` +
        `A stateful bolt acks its input at the checkpoint after it, so its tuples would time out and replay before any checkpoint. Lower the interval (e.g. -c topology.state.checkpoint.interval.ms=${Math.max(100, Math.floor((timeoutSecs * 1000) / 10))}) or raise the timeout`,
      first,
      { key: 'topology.state.checkpoint.interval.ms', value: interval },
    );
  }
}
