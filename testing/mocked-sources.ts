/**
 * Storm's MockedSources: tuples a spout emits in place of running, on the streams they name. A plain record works
 * too: `{ spout: [[…], …] }` (its default stream, or its first declared one) or `{ spout: { even: [[…]], odd: [[…]] } }`.
 *
 * @example
 * const mocked = new MockedSources().addMockData('numbers', 'even', [2], [4]).addMockData('numbers', 'odd', [1]);
 * await completeTopology('numbers.ts', { mockedSources: mocked });
 */
import { TopologyLoadError } from '../common/errors.js';
import type { TopologyDef } from '../common/topology-def.js';

/** Spout id → stream id → the value lists it emits there. */
export type MockedData = Record<string, Record<string, unknown[][]>>;

export type MockedSourcesInput = MockedSources | Record<string, unknown[][] | Record<string, unknown[][]>>;

/** The stream a mock given as a bare list goes to: the spout's default stream, or the first one it declares. */
const SPOUT_DEFAULT = '\u0000default';

export class MockedSources {
  private readonly data: MockedData = {};

  /** Storm's `addMockData(spoutId, streamId, values...)`; without a stream, the spout's default (or first) stream. */
  addMockData(spoutId: string, stream: string, ...values: unknown[][]): this;
  addMockData(spoutId: string, ...values: unknown[][]): this;
  addMockData(spoutId: string, ...rest: (string | unknown[])[]): this {
    const [stream, values] = typeof rest[0] === 'string' ? [rest[0], rest.slice(1)] : [SPOUT_DEFAULT, rest];
    ((this.data[spoutId] ??= {})[stream] ??= []).push(...(values as unknown[][]));
    return this;
  }

  /** The mocks, streams resolved against `def` and checked: a spout of the topology, a stream it declares, not direct. */
  resolve(def: TopologyDef): MockedData {
    return resolveMocked(this.data, def);
  }
}

/** Either form of mocked sources, resolved and checked against the topology (see MockedSources.resolve). */
export function resolveMocked(input: MockedSourcesInput | undefined, def: TopologyDef): MockedData {
  if (input === undefined) return {};
  if (input instanceof MockedSources) return input.resolve(def);
  const out: MockedData = {};
  for (const [spoutId, given] of Object.entries(input)) {
    const spout = def.components.find((c) => c.id === spoutId && c.kind === 'spout');
    if (!spout) {
      const spouts = def.components.filter((c) => c.kind === 'spout').map((c) => c.id);
      throw new TopologyLoadError(`mocked source "${spoutId}" is not a spout of the topology (spouts: ${spouts.join(', ')})`, '(under test)');
    }
    const byStream = Array.isArray(given) ? { [SPOUT_DEFAULT]: given } : given;
    for (const [key, tuples] of Object.entries(byStream)) {
      const stream = key === SPOUT_DEFAULT ? (spout.streams.some((s) => s.id === 'default') ? 'default' : (spout.streams[0]?.id ?? 'default')) : key;
      const declared = spout.streams.find((s) => s.id === stream);
      if (!declared) throw new TopologyLoadError(`mocked source "${spoutId}": stream "${stream}" is not one it declares (${spout.streams.map((s) => s.id).join(', ') || 'none'})`, '(under test)');
      if (declared.direct) throw new TopologyLoadError(`mocked source "${spoutId}": stream "${stream}" is direct, and a mocked spout emits by grouping only`, '(under test)');
      const bad = tuples.findIndex((t) => !Array.isArray(t) || t.length !== declared.fields.length);
      if (bad >= 0) throw new TopologyLoadError(`mocked source "${spoutId}" stream "${stream}": tuple ${bad} must be a list of ${declared.fields.length} value(s) (${declared.fields.join(', ')})`, '(under test)');
      ((out[spoutId] ??= {})[stream] ??= []).push(...tuples);
    }
  }
  return out;
}
