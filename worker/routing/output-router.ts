/**
 * Stream routing: for one emitting component, which task(s) each tuple goes
 * to under each subscriber's grouping. Built once per executor from the
 * topology definition; `route` is on the hot path and allocates one array.
 *
 * It follows the assignment (updatePlacement, at every one the worker
 * applies): groupings free to choose (shuffle, none, localOrShuffle, twoChoice,
 * loadAwareShuffle) choose among the subscriber's running tasks, partialKey
 * between its two candidates the one that runs; one that must reach a given
 * task (fields, global, all, direct, and a custom grouping's choice) leaves
 * out a task no worker runs, and `unplaced` then names the subscriber, so the
 * executor can fail the tuple at once rather than let it wait out the message
 * timeout.
 */
import type { GroupingDef, TopologyDef } from '../../common/topology-def.js';
import { EmitError, TopologyValidationError } from '../../common/errors.js';
import type { CustomStreamGrouping } from '../../topology-sdk/custom-grouping.js';
import type { TopologyContext } from '../../topology-sdk/context.js';
import { fmix32, hashValues } from './fields-hash.js';
import { NO_LOAD, type RoutingLoad } from './load/task-load.js';
import { pickTwoChoice } from './load/two-choice.js';
import { LoadAwareShuffle } from './load/load-aware-shuffle.js';
import { PartialKeyChooser } from './load/partial-key.js';

/** Seed of partial key grouping's second hash (any odd constant other than FNV's offset basis). */
const SECOND_HASH_SEED = 0x9e3779b1;

interface Subscription {
  component: string;
  grouping: GroupingDef;
  tasks: number[];
  /** The tasks a worker runs (all of `tasks` while allRunning). */
  running: number[];
  allRunning: boolean;
  /** localOrShuffle: the subset of `tasks` in this worker (empty: use all). */
  localTasks: number[];
  fieldIndexes: number[];
  /** Shuffle: Storm deals from a shuffled deck so the spread is even, not just random on average. */
  deck: number[];
  cursor: number;
  /** loadAwareShuffle: its weights and scope. */
  loadAware: LoadAwareShuffle | null;
  /** partialKey: the chooser between a key's two candidates. */
  partialKey: PartialKeyChooser | null;
  /** custom: the emitting task's own grouping object, prepared, and the tasks it may choose. */
  custom: CustomStreamGrouping | null;
  taskSet: ReadonlySet<number> | null;
}

export interface RoutingTopology {
  def: TopologyDef;
  tasksOf(component: string): readonly number[];
  isLocal(task: number): boolean;
  /** A worker runs the task in the current assignment. */
  isPlaced(task: number): boolean;
  /** The load signal of twoChoice / loadAwareShuffle / partialKey; absent: no figures (they route at random). */
  readonly routingLoad?: RoutingLoad | null;
  /** A new object of the custom grouping `subscriber` uses on `source`'s `stream` (from the topology module). */
  customGrouping?(subscriber: string, source: string, stream: string): CustomStreamGrouping | undefined;
  /** The context a custom grouping is prepared with: the emitting task's. */
  contextFor?(component: string, task: number): TopologyContext;
}

/** Storm's defaults, for a host that provides no load signal. */
const NO_ROUTING_LOAD: RoutingLoad = { view: NO_LOAD, clock: () => performance.now(), refreshMs: 1000, higherBound: 0.8, lowerBound: 0.2 };

export class OutputRouter {
  private readonly byStream = new Map<string, Subscription[]>();
  private readonly directTargets = new Map<string, Set<number>>();
  private readonly load: RoutingLoad;
  /** stream → its declared fields: an emit must carry exactly that many values. */
  private readonly declared = new Map<string, readonly string[]>();
  private readonly subscriptions: Subscription[] = [];
  /** Set by the last route / targets call: a subscriber it could not reach, no worker running the task it needed. */
  unplaced: string | null = null;

  /** `task`: the emitting task (a custom grouping's chooseTasks is told it; -1 where none is known). */
  constructor(
    readonly component: string,
    private readonly topo: RoutingTopology,
    private readonly random: () => number = Math.random,
    private readonly task = -1,
  ) {
    const src = topo.def.components.find((c) => c.id === component);
    if (!src) throw new TopologyValidationError(`unknown component "${component}"`);
    this.load = topo.routingLoad ?? NO_ROUTING_LOAD;
    for (const s of src.streams) {
      this.byStream.set(s.id, []);
      this.declared.set(s.id, s.fields);
    }
    for (const c of topo.def.components) {
      for (const input of c.inputs) {
        if (input.component !== component) continue;
        const fields = src.streams.find((s) => s.id === input.stream)?.fields ?? [];
        const tasks = [...topo.tasksOf(c.id)].sort((a, b) => a - b);
        const sub: Subscription = {
          component: c.id,
          grouping: input.grouping,
          tasks,
          running: tasks,
          allRunning: true,
          localTasks: [],
          fieldIndexes: input.grouping.type === 'fields' || input.grouping.type === 'partialKey' ? input.grouping.fields.map((f) => fields.indexOf(f)) : [],
          deck: [],
          cursor: 0,
          loadAware: null,
          partialKey: input.grouping.type === 'partialKey' ? new PartialKeyChooser(this.load.view) : null,
          custom: input.grouping.type === 'custom' ? this.prepareCustom(c.id, input.stream, tasks) : null,
          taskSet: input.grouping.type === 'custom' ? new Set(tasks) : null,
        };
        this.subscriptions.push(sub);
        this.byStream.get(input.stream)?.push(sub);
        if (input.grouping.type === 'direct') {
          const set = this.directTargets.get(input.stream) ?? new Set<number>();
          tasks.forEach((t) => set.add(t));
          this.directTargets.set(input.stream, set);
        }
      }
    }
    this.updatePlacement();
  }

  /** The emitting task's own object of a subscriber's custom grouping, prepared as Storm prepares it. */
  private prepareCustom(subscriber: string, stream: string, tasks: readonly number[]): CustomStreamGrouping {
    const grouping = this.topo.customGrouping?.(subscriber, this.component, stream);
    // createTopology refuses a custom grouping without its object, and every worker builds the same topology.
    if (!grouping) throw new TopologyValidationError(`bolt "${subscriber}": the topology module has no custom grouping for stream "${stream}" of "${this.component}"`, subscriber);
    const context = this.topo.contextFor?.(this.component, this.task);
    if (context) grouping.prepare(context, { componentId: this.component, streamId: stream }, [...tasks]);
    return grouping;
  }

  /** Re-reads which subscriber tasks run and which run in this worker (at every assignment the worker applies). */
  updatePlacement(): void {
    for (const s of this.subscriptions) {
      const running = s.tasks.filter((t) => this.topo.isPlaced(t));
      const localTasks = s.tasks.filter((t) => this.topo.isLocal(t));
      const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((t, i) => t === b[i]);
      const changed = !same(running, s.running) || !same(localTasks, s.localTasks) || (s.grouping.type === 'loadAwareShuffle' && s.loadAware === null);
      s.allRunning = running.length === s.tasks.length;
      s.running = s.allRunning ? s.tasks : running;
      s.localTasks = localTasks;
      if (changed) s.deck = []; // dealt afresh from the tasks that run now
      if (changed && s.grouping.type === 'loadAwareShuffle') {
        s.loadAware = new LoadAwareShuffle(s.running.length > 0 ? s.running : s.tasks, localTasks, this.load, this.random);
      }
    }
  }

  /** The fields a stream declares; undefined for an undeclared stream. */
  fieldsOf(stream: string): readonly string[] | undefined {
    return this.declared.get(stream);
  }

  hasStream(stream: string): boolean {
    return this.byStream.has(stream);
  }

  /** The streams the component declared. */
  streams(): IterableIterator<string> {
    return this.byStream.keys();
  }

  /** A subscriber of `stream` none of whose tasks runs (every tuple on the stream reaches it, so none completes); null when none. */
  unreachable(stream: string): string | null {
    for (const s of this.byStream.get(stream) ?? []) if (!s.allRunning && s.running.length === 0 && s.grouping.type !== 'direct') return s.component;
    return null;
  }

  /** Every task any tuple of this component may reach (for backpressure checks). */
  allTargets(): number[] {
    const out = new Set<number>();
    for (const subs of this.byStream.values()) for (const s of subs) s.tasks.forEach((t) => out.add(t));
    return [...out];
  }

  /**
   * Target tasks of one tuple; throws for a stream the component never declared. A subscriber whose task cannot be
   * reached (no worker runs it) gets none, and `unplaced` names it.
   */
  route(stream: string, values: readonly unknown[]): number[] {
    const subs = this.byStream.get(stream);
    if (!subs) throw this.undeclared(stream);
    this.checkValues(stream, values);
    this.unplaced = null;
    const out: number[] = [];
    for (const s of subs) {
      // Free choices choose among the running tasks; none running: the subscriber cannot be reached.
      if (!s.allRunning && s.running.length === 0 && s.grouping.type !== 'direct') {
        this.unplaced = s.component;
        continue;
      }
      switch (s.grouping.type) {
        case 'shuffle':
        case 'none':
          out.push(this.deal(s, s.running));
          break;
        case 'localOrShuffle':
          out.push(this.deal(s, s.localTasks.length > 0 ? s.localTasks : s.running));
          break;
        case 'fields':
          this.pushPlaced(s, s.tasks[hashValues(values, s.fieldIndexes) % s.tasks.length]!, out);
          break;
        case 'all':
          for (const t of s.tasks) this.pushPlaced(s, t, out);
          break;
        case 'global':
          this.pushPlaced(s, s.tasks[0]!, out);
          break;
        case 'direct':
          break; // only emitDirect reaches direct subscribers
        case 'twoChoice':
          out.push(pickTwoChoice(s.running, this.load.view, this.random));
          break;
        case 'loadAwareShuffle':
          out.push(s.loadAware!.pick());
          break;
        case 'partialKey':
          this.pushPartialKey(s, values, out);
          break;
        case 'custom':
          this.pushCustom(s, stream, values, out);
          break;
      }
    }
    return out;
  }

  /** Targets of an emit: by grouping, or the one task of an emitDirect (checked). */
  targets(stream: string, values: readonly unknown[], directTask: number | null): number[] {
    if (directTask === null) return this.route(stream, values);
    this.checkDirect(stream, directTask);
    this.checkValues(stream, values);
    if (this.topo.isPlaced(directTask)) {
      this.unplaced = null;
      return [directTask];
    }
    this.unplaced = this.topo.def.components.find((c) => this.topo.tasksOf(c.id).includes(directTask))?.id ?? String(directTask);
    return [];
  }

  /** The less loaded of the key's two candidates, of those a worker runs. */
  private pushPartialKey(s: Subscription, values: readonly unknown[], out: number[]): void {
    const n = s.tasks.length;
    // Mixed (fmix32): FNV's low bits depend only on the seeds' low bits, so `% n` of two raw FNV hashes are correlated.
    const a = s.tasks[fmix32(hashValues(values, s.fieldIndexes)) % n]!;
    const b = s.tasks[fmix32(hashValues(values, s.fieldIndexes, SECOND_HASH_SEED)) % n]!;
    if (s.allRunning) {
      out.push(s.partialKey!.pick(a, b));
      return;
    }
    const ra = this.topo.isPlaced(a);
    const rb = this.topo.isPlaced(b);
    if (ra || rb) out.push(ra && rb ? s.partialKey!.pick(a, b) : ra ? a : b);
    else this.unplaced = s.component;
  }

  /** The custom grouping's choice, checked: a task the subscriber does not have is the grouping's mistake. */
  private pushCustom(s: Subscription, stream: string, values: readonly unknown[], out: number[]): void {
    const chosen = s.custom!.chooseTasks(this.task, values);
    if (!Array.isArray(chosen)) {
      throw new EmitError(`the custom grouping of "${s.component}" on stream "${stream}" of "${this.component}" returned ${typeof chosen}, not an array of task ids`, this.component, stream);
    }
    for (const t of chosen as readonly unknown[]) {
      if (typeof t !== 'number' || !s.taskSet!.has(t)) {
        throw new EmitError(
          `the custom grouping of "${s.component}" on stream "${stream}" of "${this.component}" chose task ${String(t)}, which is not one of its target tasks (${s.tasks.join(', ')})`,
          this.component,
          stream,
        );
      }
      this.pushPlaced(s, t, out);
    }
  }

  /** A task the grouping must reach: kept when a worker runs it, else the subscriber is marked unplaced. */
  private pushPlaced(s: Subscription, task: number, out: number[]): void {
    if (s.allRunning || this.topo.isPlaced(task)) out.push(task);
    else this.unplaced = s.component;
  }

  /** Checks that `task` subscribes to `stream` with direct grouping. */
  checkDirect(stream: string, task: number): void {
    if (!this.byStream.has(stream)) throw this.undeclared(stream);
    if (!this.directTargets.get(stream)?.has(task)) {
      throw new EmitError(`emitDirect from "${this.component}" on stream "${stream}" to task ${task}, which does not subscribe to it with direct grouping`, this.component, stream);
    }
  }

  private undeclared(stream: string): EmitError {
    const known = [...this.byStream.keys()].map((s) => `"${s}"`).join(', ') || 'none';
    return new EmitError(`component "${this.component}" emits on undeclared stream "${stream}" (declared: ${known}; declare it in declareOutputFields)`, this.component, stream);
  }

  private checkValues(stream: string, values: readonly unknown[]): void {
    const fields = this.declared.get(stream);
    if (fields && values.length !== fields.length) {
      throw new EmitError(
        `component "${this.component}" emitted ${values.length} value(s) on stream "${stream}", which declares ${fields.length} field(s) (${fields.join(', ')})`,
        this.component,
        stream,
      );
    }
  }

  private deal(s: Subscription, tasks: number[]): number {
    // A new deck only when the task set changed; otherwise the spent one is shuffled again in place (it holds the
    // same tasks): no array per tuple, even for a subscriber of one task, whose deck is spent at every deal
    // (docs/benchmarks.md, "Acking, third round").
    if (s.deck.length !== tasks.length) {
      s.deck = [...tasks];
      s.cursor = s.deck.length;
    }
    if (s.cursor >= s.deck.length) {
      for (let i = s.deck.length - 1; i > 0; i--) {
        const j = Math.floor(this.random() * (i + 1));
        [s.deck[i], s.deck[j]] = [s.deck[j]!, s.deck[i]!];
      }
      s.cursor = 0;
    }
    return s.deck[s.cursor++]!;
  }
}
