/**
 * Where a task's state lives in the store: `{<topology name>:<component>:<task index>}`, with a suffix for a second
 * namespace of the same task (`{…}:window`, a stateful window's own bookkeeping). By name and index, not topology id
 * and task id (Storm's `<component>-<task id>`): a topology killed and submitted again under its name gets a new id
 * and finds its state, and a rebalance that renumbers other components' tasks does not move it.
 *
 * The braces keep two topologies apart whatever their key prefixes: the Redis store puts `keyPrefix` in front of the
 * namespace, and without them prefix `hstorm:state:s` with topology `t1` made the same keys as prefix
 * `hstorm:state:` with topology `st1`. A namespace starts with the only `{` it holds (a brace in a name is escaped),
 * so no namespace is the tail of another, and prefix + namespace names one (prefix, topology, component, task) only.
 * In Redis the braces are also a hash tag: the three hashes of a namespace share a Redis Cluster slot, as the
 * commit script that touches all three needs.
 */
import type { TopologyContext } from '../context.js';

/** Topology names and component ids hold no braces today; escaped all the same, so the rule does not lean on that. */
function escaped(name: string): string {
  return name.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function stateNamespace(ctx: Pick<TopologyContext, 'topologyName' | 'componentId' | 'taskIndex'>, suffix?: string): string {
  return `{${escaped(ctx.topologyName)}:${escaped(ctx.componentId)}:${ctx.taskIndex}}${suffix ? `:${suffix}` : ''}`;
}
