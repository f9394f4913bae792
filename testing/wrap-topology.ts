/**
 * Builds the topology a test runs: the user's module's topology with mocked
 * spouts and the capture bolt (testing-parts.ts). The generated module a
 * completeTopology run submits calls this, in the test process and in every
 * worker alike, so all of them build the same topology.
 */
import { StormTopology } from '../topology-sdk/topology-builder.js';
import type { TopologyModule, TopologyModuleContext } from '../topology-sdk/topology-module.js';
import type { BoltFactory, SpoutFactory } from '../topology-sdk/components.js';
import { TopologyLoadError } from '../common/errors.js';
import { CAPTURE_COMPONENT, CAPTURE_DIR_KEY, CaptureBolt, MOCKED_SOURCES_KEY, MockedSpout, captureDef } from './testing-parts.js';

export async function wrapForTesting(exported: TopologyModule | undefined, ctx: TopologyModuleContext): Promise<StormTopology> {
  const topology = typeof exported === 'function' ? await exported(ctx) : exported;
  if (!(topology instanceof StormTopology)) throw new TopologyLoadError('the module under test must default-export a topology or a function returning one', '(under test)');
  const mocked = (ctx.config[MOCKED_SOURCES_KEY] as Record<string, unknown> | undefined) ?? {};
  for (const id of Object.keys(mocked)) {
    const c = topology.def.components.find((x) => x.id === id);
    if (!c || c.kind !== 'spout') throw new TopologyLoadError(`mocked source "${id}" is not a spout of the topology (spouts: ${topology.def.components.filter((x) => x.kind === 'spout').map((x) => x.id).join(', ')})`, '(under test)');
  }
  const factories = new Map<string, SpoutFactory | BoltFactory>(topology.factories);
  for (const c of topology.def.components) {
    if (c.kind === 'spout' && c.id in mocked) factories.set(c.id, () => new MockedSpout(c.id, c.streams));
  }
  const components = [...topology.def.components];
  if (typeof ctx.config[CAPTURE_DIR_KEY] === 'string') {
    components.push(captureDef(topology.def.components));
    factories.set(CAPTURE_COMPONENT, () => new CaptureBolt());
  }
  return new StormTopology({ ...topology.def, components }, factories);
}
