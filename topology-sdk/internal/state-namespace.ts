/**
 * Where a task's state lives in the store: `<topology name>:<component>:<task index>`, with a suffix for a second
 * namespace of the same task (a stateful window's own bookkeeping). By name and index, not topology id and task id
 * (Storm's `<component>-<task id>`): a topology killed and submitted again under its name gets a new id and finds its
 * state, and a rebalance that renumbers other components' tasks does not move it. Two topologies in one Redis keep
 * apart by name.
 */
import type { TopologyContext } from '../context.js';

export function stateNamespace(ctx: Pick<TopologyContext, 'topologyName' | 'componentId' | 'taskIndex'>, suffix?: string): string {
  return `${ctx.topologyName}:${ctx.componentId}:${ctx.taskIndex}${suffix ? `:${suffix}` : ''}`;
}
