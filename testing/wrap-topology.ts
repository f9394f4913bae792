/**
 * Builds the topology a completeTopology run submits: the user's module's topology with its mocked spouts replaced
 * (mocked-spout.ts) and every component's emits captured (capture.ts). The generated module a run submits calls
 * this, in the test process and in every worker alike, so all of them build the same topology.
 */
import { StormTopology } from '../topology-sdk/topology-builder.js';
import type { TopologyModule, TopologyModuleContext } from '../topology-sdk/topology-module.js';
import type { BoltFactory, SpoutFactory } from '../topology-sdk/components.js';
import { TopologyLoadError } from '../common/errors.js';
import { ValueTypes } from '../worker/index.js';
import { CAPTURE_DIR_KEY, captureEmits } from './capture.js';
import { MockedSpout, decodeMocked } from './mocked-spout.js';

export async function wrapForTesting(exported: TopologyModule | undefined, ctx: TopologyModuleContext): Promise<StormTopology> {
  const topology = typeof exported === 'function' ? await exported(ctx) : exported;
  if (!(topology instanceof StormTopology)) throw new TopologyLoadError('the module under test must default-export a topology or a function returning one', '(under test)');
  const mocked = decodeMocked(ctx.config);
  for (const id of Object.keys(mocked)) {
    const c = topology.def.components.find((x) => x.id === id);
    if (!c || c.kind !== 'spout') throw new TopologyLoadError(`mocked source "${id}" is not a spout of the topology (spouts: ${topology.def.components.filter((x) => x.kind === 'spout').map((x) => x.id).join(', ')})`, '(under test)');
  }
  const factories = new Map<string, SpoutFactory | BoltFactory>(topology.factories);
  for (const c of topology.def.components) {
    if (c.kind === 'spout' && c.id in mocked) factories.set(c.id, () => new MockedSpout(c.id, c.streams));
  }
  const dir = ctx.config[CAPTURE_DIR_KEY];
  if (typeof dir === 'string') {
    const types = new ValueTypes(topology.serializations);
    for (const [id, factory] of factories) factories.set(id, (() => captureEmits(factory(), id, dir, types)) as SpoutFactory | BoltFactory);
  }
  // Same definition, same code: only the factories differ, so every worker's check against the submitted definition holds.
  return new StormTopology(topology.def, factories, topology.code);
}
