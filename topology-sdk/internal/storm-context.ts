/**
 * The part of a TopologyContext that Storm's getters read: what the topology definition says about a task, its
 * component and their streams (Storm's GeneralTopologyContext / WorkerTopologyContext). Pure: the worker's context
 * factory and hstorm/testing's testContext both build a context's Storm methods from it.
 */
import { HstormError } from '../../common/errors.js';
import { ACKER_COMPONENT, type GlobalStreamId, type GroupingDef, type TopologyDef } from '../../common/topology-def.js';
import { Fields } from '../fields.js';

/** A component or stream a TopologyContext getter was asked about does not exist. */
export class ContextLookupError extends HstormError {
  constructor(message: string) {
    super('HSTORM_ERR_SDK_CONTEXT_LOOKUP', message);
  }
}

/** Storm's TopologyContext getters, as hstorm's context offers them. */
export interface StormContextGetters {
  /** Storm's getThisTaskId(). */
  getThisTaskId(): number;
  /** Storm's getThisComponentId(). */
  getThisComponentId(): string;
  /** Index of this task among its component's tasks (Storm's getThisTaskIndex()). */
  getThisTaskIndex(): number;
  /** Storm's getStormId(): the topology id. */
  getStormId(): string;
  /** Port of this task's worker (Storm's getThisWorkerPort()). */
  getThisWorkerPort(): number;
  /** The component that runs `taskId` (Storm's getComponentId); `__acker` for an acker; undefined for no such task. */
  getComponentId(taskId: number): string | undefined;
  /** Every component id of the topology (Storm's getComponentIds()). */
  getComponentIds(): Set<string>;
  /** The task ids of a component, sorted (Storm's getComponentTasks); empty for an unknown component. */
  getComponentTasks(componentId: string): number[];
  /** The fields of a component's stream (Storm's getComponentOutputFields); throws for an undeclared one. */
  getComponentOutputFields(componentId: string, streamId?: string): Fields;
  /** The fields of one of this component's streams (Storm's getThisOutputFields). */
  getThisOutputFields(streamId?: string): Fields;
  /** The streams a component declares (Storm's getComponentStreams). */
  getComponentStreams(componentId: string): Set<string>;
  /** The streams this component declares (Storm's getThisStreams). */
  getThisStreams(): Set<string>;
  /**
   * What this component subscribes to and with which grouping (Storm's getThisSources). Keys are GlobalStreamId
   * objects, as Storm's: iterate the map (`for (const [{ componentId, streamId }, grouping] of …)`) — a `get` with a
   * new object finds nothing, since a Map compares object keys by identity.
   */
  getThisSources(): Map<GlobalStreamId, GroupingDef>;
  /** Who subscribes to this component's streams: stream id → subscriber id → grouping (Storm's getThisTargets). */
  getThisTargets(): Map<string, Map<string, GroupingDef>>;
  /** The fields of each stream this component subscribes to: source id → stream id → fields (Storm's getThisInputFields). */
  getThisInputFields(): Map<string, Map<string, Fields>>;
}

export interface StormContextSource {
  def: TopologyDef;
  topologyId: string;
  componentId: string;
  taskId: number;
  workerPort: number;
  tasksOf: (component: string) => readonly number[];
}

export function stormContextGetters(src: StormContextSource): StormContextGetters {
  const { def, componentId, taskId } = src;
  const byId = new Map(def.components.map((c) => [c.id, c]));
  const tasks = (c: string) => [...src.tasksOf(c)].sort((a, b) => a - b);
  const outputFields = (component: string, stream: string): Fields => {
    const c = byId.get(component);
    if (!c) throw new ContextLookupError(`no component "${component}" in the topology (components: ${[...byId.keys()].join(', ')})`);
    const s = c.streams.find((x) => x.id === stream);
    if (!s) throw new ContextLookupError(`component "${component}" declares no stream "${stream}" (streams: ${c.streams.map((x) => x.id).join(', ') || 'none'})`);
    return new Fields(s.fields);
  };
  const streams = (component: string) => new Set(byId.get(component)?.streams.map((s) => s.id) ?? []);
  return {
    getThisTaskId: () => taskId,
    getThisComponentId: () => componentId,
    getThisTaskIndex: () => tasks(componentId).indexOf(taskId),
    getStormId: () => src.topologyId,
    getThisWorkerPort: () => src.workerPort,
    getComponentId: (t) => [...byId.keys(), ACKER_COMPONENT].find((c) => src.tasksOf(c).includes(t)),
    getComponentIds: () => new Set(byId.keys()),
    getComponentTasks: (c) => tasks(c),
    getComponentOutputFields: (c, stream = 'default') => outputFields(c, stream),
    getThisOutputFields: (stream = 'default') => outputFields(componentId, stream),
    getComponentStreams: (c) => streams(c),
    getThisStreams: () => streams(componentId),
    getThisSources: () => new Map((byId.get(componentId)?.inputs ?? []).map((i) => [{ componentId: i.component, streamId: i.stream }, i.grouping])),
    getThisTargets: () => {
      const out = new Map<string, Map<string, GroupingDef>>();
      for (const s of byId.get(componentId)?.streams ?? []) out.set(s.id, new Map());
      for (const c of def.components) {
        for (const i of c.inputs) if (i.component === componentId) out.get(i.stream)?.set(c.id, i.grouping);
      }
      return out;
    },
    getThisInputFields: () => {
      const out = new Map<string, Map<string, Fields>>();
      for (const i of byId.get(componentId)?.inputs ?? []) {
        const fields = byId.get(i.component)?.streams.find((s) => s.id === i.stream)?.fields ?? [];
        let m = out.get(i.component);
        if (!m) out.set(i.component, (m = new Map()));
        m.set(i.stream, new Fields(fields));
      }
      return out;
    },
  };
}
