/**
 * Builds the TopologyContext each task gets in open/prepare: what the task
 * may know about the topology and this worker, and the hooks the SDK offers
 * (signals, tuple-completion listeners, busy time, metric sections, user
 * metrics, component load, the worker's shared GPU backend).
 */
import { dirname } from 'node:path';
import type { ClusterState } from '../../common/cluster-state.js';
import type { Logger } from '../../common/logger.js';
import type { TopologyDef } from '../../common/topology-def.js';
import type { WorkerAssignment } from '../../common/assignment.js';
import type { WorkerLaunch } from '../../common/worker-env.js';
import type { ComponentPlacement, TopologyContext } from '../../topology-sdk/context.js';
import type { Executor } from '../executor/executor.js';
import { SpoutExecutor } from '../executor/spout-executor.js';
import { ContextHookError } from '../errors.js';
import type { SignalHub } from './signal-hub.js';
import { WorkerGpuBackends } from '../gpu/gpu-backend.js';
import { readComponentLoad } from './component-load.js';
import { userMetricsOf } from './user-metrics-api.js';
import { stormContextGetters } from '../../topology-sdk/internal/storm-context.js';
import type { ComponentSettings, WorkerSettings } from '../worker-settings.js';
import { openStateStore, type StateStore } from '../../common/state-store/index.js';
import { RateLimitedLog } from '../../common/logger.js';

/** What a context is built from; the functions are read when a context is built (or, for executors, when a hook runs). */
export interface ContextSources {
  topologyId: string;
  def: TopologyDef;
  launch: WorkerLaunch;
  log: Logger;
  store: ClusterState;
  signals: SignalHub;
  gpuCpuThreads: WorkerSettings['gpuCpuThreads'];
  /** The topology's name as the current StormBase has it. */
  topologyName: () => string;
  /** This worker's slot in the current assignment. */
  assigned: () => WorkerAssignment | undefined;
  tasksOf: (component: string) => readonly number[];
  placementOf: (component: string) => ComponentPlacement;
  onPlacementChange: (listener: () => void) => () => void;
  executorOf: (task: number) => Executor | undefined;
  /** The component's settings (worker-settings.ts ComponentConfigs). */
  settingsOf: (component: string) => ComponentSettings;
  /** Where the state store is (worker-settings.ts). */
  stateStore: WorkerSettings['state'];
}

export class TopologyContextFactory {
  /** Created by the first GPU bolt task that asks; probes once per process. */
  private gpuBackends: WorkerGpuBackends | null = null;
  /** Opened by the first stateful task (or checkpoint spout) that asks; one per process, closed when the worker stops. */
  private stateStore: StateStore | null = null;
  private stateClosed = false;

  constructor(private readonly src: ContextSources) {}

  /** The worker's state store, opened on first use. */
  private state(): StateStore {
    if (this.stateStore) return this.stateStore;
    if (this.stateClosed) throw new Error('the state store was closed with the worker');
    const settings = this.src.stateStore;
    const log = this.src.log.child({ stateStore: settings.provider });
    const connectionLog = new RateLimitedLog(log);
    const store = openStateStore(settings, { onConnectionError: (err) => connectionLog.warn({ err }, 'state store connection trouble (Redis); checkpoints fail and are retried until it answers') });
    if (store.provider === 'memory') {
      log.warn('topology.state.provider is memory: stateful bolts keep their state in this worker process, and it is lost when the worker exits or is killed. Set topology.state.provider: redis for state that survives (docs/state.md)');
    } else {
      log.info({ where: store.where }, 'state store opened');
    }
    this.stateStore = store;
    return store;
  }

  /** Closes what contexts opened (the state store's connection). */
  async close(): Promise<void> {
    this.stateClosed = true;
    await this.stateStore?.close();
  }

  contextFor(component: string, task: number): TopologyContext {
    const src = this.src;
    const tasks = src.tasksOf(component);
    const mine = src.assigned();
    const gpu = mine?.gpu ? { gpuId: mine.gpu.gpuId, name: mine.gpu.name, source: mine.gpu.source, pciBusId: mine.gpu.pciBusId ?? null } : null;
    const state = (): StateStore => this.state();
    return {
      get stateStore() {
        return state();
      },
      ...stormContextGetters({ def: src.def, topologyId: src.topologyId, componentId: component, taskId: task, workerPort: src.launch.port, tasksOf: src.tasksOf }),
      topologyId: src.topologyId,
      topologyName: src.topologyName(),
      componentId: component,
      taskId: task,
      taskIndex: tasks.indexOf(task),
      componentTasks: tasks,
      tasksOf: (c: string) => src.tasksOf(c),
      placementOf: (c: string) => src.placementOf(c),
      onPlacementChange: (listener: () => void) => src.onPlacementChange(listener),
      topologyDef: src.def,
      codeDir: dirname(src.launch.modulePath),
      workerPort: src.launch.port,
      gpu,
      log: src.log.child({ component, task }),
      sendSignal: (target: string, name: string, value: unknown) => src.signals.send(target, name, value, { component, task }),
      onSignal: (name, handler) => src.signals.on(component, name, handler as (s: unknown) => void as never),
      onTupleComplete: (listener) => {
        const ex = src.executorOf(task);
        if (!(ex instanceof SpoutExecutor)) throw new ContextHookError('onTupleComplete', component, task, 'is not a spout');
        const prev = ex.observer;
        ex.observer = {
          onComplete: (stream, latencyMs, acked) => {
            prev?.onComplete(stream, latencyMs, acked);
            listener(stream, latencyMs, acked);
          },
        };
      },
      reportBusyTime: (supplier) => {
        src.executorOf(task)?.metrics.countOffThreadBusy(supplier);
      },
      reportMetrics: (section, supplier) => {
        src.executorOf(task)?.metricSections.set(section, supplier);
      },
      componentLoad: (c: string) => readComponentLoad(src.store, src.topologyId, c),
      ...userMetricsOf(() => src.executorOf(task), component, task),
      acquireGpuBackend: () => {
        this.gpuBackends ??= new WorkerGpuBackends(gpu, src.gpuCpuThreads, src.log.child({ gpu: gpu?.gpuId ?? null }));
        return this.gpuBackends.acquire(src.settingsOf(component).gpuBackend);
      },
    };
  }
}
