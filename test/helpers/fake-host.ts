/**
 * An ExecutorHost without a worker, for unit tests of executors: every task of
 * the definition counts as local and placed, sends are recorded (and handed to
 * a receiving executor when the test registers one), and acking is off unless
 * the test gives acker tasks.
 */
import { computeTasks, type TopologyDef } from '../../common/topology-def.js';
import { silentLogger } from '../../common/logger.js';
import type { ComponentPlacement, TopologyContext } from '../../topology-sdk/context.js';
import type { ExecutorHost, LocalAcker } from '../../worker/executor/executor-host.js';
import { fakeContext } from './fake-context.js';

export interface Sent {
  dest: number;
  srcComponent: string;
  srcTask: number;
  stream: string;
  values: unknown[];
  anchors: bigint[] | null;
}

export class FakeHost implements ExecutorHost {
  readonly topologyId = 'fake-1';
  readonly log = silentLogger();
  readonly sent: Sent[] = [];
  wakes = 0;
  private readonly tasks: ReturnType<typeof computeTasks>;

  constructor(
    readonly def: TopologyDef,
    private readonly config: Record<string, unknown> = {},
  ) {
    this.tasks = computeTasks(def, 0);
  }

  tasksOf(component: string): readonly number[] {
    return this.tasks.filter((t) => t.component === component).map((t) => t.task);
  }

  isLocal(): boolean {
    return true;
  }

  isPlaced(): boolean {
    return true;
  }

  configOf(): Readonly<Record<string, unknown>> {
    return this.config;
  }

  send(dest: number, srcComponent: string, srcTask: number, stream: string, values: unknown[], anchors: bigint[] | null): void {
    this.sent.push({ dest, srcComponent, srcTask, stream, values, anchors });
  }

  ackerFor(): number | null {
    return null;
  }

  isCongested(): boolean {
    return false;
  }

  wake(): void {
    this.wakes++;
  }

  localAcker(): LocalAcker | undefined {
    return undefined;
  }

  runsHere(): boolean {
    return true;
  }

  placementOf(component: string): ComponentPlacement {
    return { running: [...this.tasksOf(component)], unplaced: [], reason: null };
  }

  contextFor(component: string, task: number): TopologyContext {
    return fakeContext({ component, taskId: task, tasks: [...this.tasksOf(component)], def: this.def });
  }
}
