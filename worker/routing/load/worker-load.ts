/**
 * The load signal of one worker, for topologies that use a load-based
 * grouping (twoChoice, loadAwareShuffle, partialKey): watches this worker's tasks of the
 * components such groupings feed, refreshes their service times and
 * publishes their figures to every peer worker every
 * topology.load.update.interval.ms, and takes the peers' reports in.
 * Topologies without such a grouping get none of this (no timer, no traffic).
 */
import type { TopologyDef } from '../../../common/topology-def.js';
import type { WireTuple } from '../../transport/wire-codec.js';
import { LoadBoard, type LoadBoardStats, type LocalTaskProbe } from './load-board.js';
import { encodeLoadReport } from './load-message.js';
import type { RoutingLoad } from './task-load.js';
import type { LoadSettings } from '../../worker-settings.js';

const LOAD_GROUPINGS = new Set(['twoChoice', 'loadAwareShuffle', 'partialKey']);

/** Components some stream feeds through a load-based grouping. */
export function loadRoutedComponents(def: TopologyDef): Set<string> {
  const out = new Set<string>();
  for (const c of def.components) if (c.inputs.some((i) => LOAD_GROUPINGS.has(i.grouping.type))) out.add(c.id);
  return out;
}

export class WorkerLoad {
  readonly board: LoadBoard;
  readonly routing: RoutingLoad;
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    readonly components: ReadonlySet<string>,
    private readonly periodMs: number,
    clock: () => number,
    staleMs: number,
    higherBound: number,
    lowerBound: number,
  ) {
    this.board = new LoadBoard({ clock, staleMs });
    this.routing = { view: this.board, clock, refreshMs: periodMs, higherBound, lowerBound };
  }

  /** Null when the topology has no load-based grouping. */
  static forTopology(def: TopologyDef, settings: LoadSettings, clock: () => number = Date.now): WorkerLoad | null {
    const components = loadRoutedComponents(def);
    if (components.size === 0) return null;
    return new WorkerLoad(components, settings.updateIntervalMs, clock, settings.staleMs, settings.higherBound, settings.lowerBound);
  }

  /** Watches a task of this worker when its component is load-routed. */
  watch(component: string, task: number, probe: LocalTaskProbe): void {
    if (this.components.has(component)) this.board.addLocal(task, probe);
  }

  /** Starts the periodic refresh; `publish` hands the report tuple to every peer. */
  start(publish: (tuple: WireTuple) => void): void {
    const beat = () => {
      this.board.tick();
      const r = this.board.report();
      if (r) publish(encodeLoadReport(r));
    };
    beat();
    this.timer = setInterval(beat, this.periodMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  stats(): LoadBoardStats {
    return this.board.stats();
  }
}
