/**
 * Stream routing: for one emitting component, which task(s) each tuple goes
 * to under each subscriber's grouping. Built once per executor from the
 * topology definition; `route` is on the hot path and allocates one array.
 */
import type { GroupingDef, TopologyDef } from '../../common/topology-def.js';
import { EmitError, TopologyValidationError } from '../../common/errors.js';
import { hashValues } from './fields-hash.js';
import { NO_LOAD, type RoutingLoad } from './load/task-load.js';
import { pickTwoChoice } from './load/two-choice.js';
import { LoadAwareShuffle } from './load/load-aware-shuffle.js';

interface Subscription {
  component: string;
  grouping: GroupingDef;
  tasks: number[];
  /** localOrShuffle: the subset of `tasks` in this worker (empty: use all). */
  localTasks: number[];
  fieldIndexes: number[];
  /** Shuffle: Storm deals from a shuffled deck so the spread is even, not just random on average. */
  deck: number[];
  cursor: number;
  /** loadAwareShuffle: its weights and scope. */
  loadAware: LoadAwareShuffle | null;
}

export interface RoutingTopology {
  def: TopologyDef;
  tasksOf(component: string): readonly number[];
  isLocal(task: number): boolean;
  /** The load signal of twoChoice / loadAwareShuffle; absent: no figures (they route at random). */
  readonly routingLoad?: RoutingLoad | null;
}

/** Storm's defaults, for a host that provides no load signal. */
const NO_ROUTING_LOAD: RoutingLoad = { view: NO_LOAD, clock: () => performance.now(), refreshMs: 1000, higherBound: 0.8, lowerBound: 0.2 };

export class OutputRouter {
  private readonly byStream = new Map<string, Subscription[]>();
  private readonly directTargets = new Map<string, Set<number>>();
  private readonly load: RoutingLoad;
  /** stream → its declared fields: an emit must carry exactly that many values. */
  private readonly declared = new Map<string, readonly string[]>();

  constructor(
    readonly component: string,
    topo: RoutingTopology,
    private readonly random: () => number = Math.random,
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
        const localTasks = tasks.filter((t) => topo.isLocal(t));
        const sub: Subscription = {
          component: c.id,
          grouping: input.grouping,
          tasks,
          localTasks,
          fieldIndexes: input.grouping.type === 'fields' ? input.grouping.fields.map((f) => fields.indexOf(f)) : [],
          deck: [],
          cursor: 0,
          loadAware: input.grouping.type === 'loadAwareShuffle' ? new LoadAwareShuffle(tasks, localTasks, this.load, this.random) : null,
        };
        this.byStream.get(input.stream)?.push(sub);
        if (input.grouping.type === 'direct') {
          const set = this.directTargets.get(input.stream) ?? new Set<number>();
          tasks.forEach((t) => set.add(t));
          this.directTargets.set(input.stream, set);
        }
      }
    }
  }

  hasStream(stream: string): boolean {
    return this.byStream.has(stream);
  }

  /** Every task any tuple of this component may reach (for backpressure checks). */
  allTargets(): number[] {
    const out = new Set<number>();
    for (const subs of this.byStream.values()) for (const s of subs) s.tasks.forEach((t) => out.add(t));
    return [...out];
  }

  /** Target tasks of one tuple; throws for a stream the component never declared. */
  route(stream: string, values: readonly unknown[]): number[] {
    const subs = this.byStream.get(stream);
    if (!subs) throw this.undeclared(stream);
    this.checkValues(stream, values);
    const out: number[] = [];
    for (const s of subs) {
      switch (s.grouping.type) {
        case 'shuffle':
          out.push(this.deal(s, s.tasks));
          break;
        case 'localOrShuffle':
          out.push(this.deal(s, s.localTasks.length > 0 ? s.localTasks : s.tasks));
          break;
        case 'fields':
          out.push(s.tasks[hashValues(values, s.fieldIndexes) % s.tasks.length]!);
          break;
        case 'all':
          for (const t of s.tasks) out.push(t);
          break;
        case 'global':
          out.push(s.tasks[0]!);
          break;
        case 'direct':
          break; // only emitDirect reaches direct subscribers
        case 'twoChoice':
          out.push(pickTwoChoice(s.tasks, this.load.view, this.random));
          break;
        case 'loadAwareShuffle':
          out.push(s.loadAware!.pick());
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
    return [directTask];
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
