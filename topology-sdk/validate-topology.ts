/**
 * Checks a topology definition as a whole, so that a bad topology fails when
 * it is built rather than when tuples start to flow.
 */
import type { TopologyDef } from '../common/topology-def.js';
import { TopologyValidationError } from '../common/errors.js';

export function validateTopology(def: TopologyDef): void {
  const byId = new Map(def.components.map((c) => [c.id, c]));
  if (!def.components.some((c) => c.kind === 'spout')) {
    throw new TopologyValidationError('invalid topology: it has no spout');
  }
  for (const c of def.components) {
    if (c.kind === 'spout' && c.inputs.length > 0) {
      throw new TopologyValidationError(`spout "${c.id}" cannot subscribe to streams`, c.id);
    }
    for (const input of c.inputs) {
      const src = byId.get(input.component);
      if (!src) {
        throw new TopologyValidationError(`bolt "${c.id}" subscribes to unknown component "${input.component}"`, c.id);
      }
      const stream = src.streams.find((s) => s.id === input.stream);
      if (!stream) {
        const declared = src.streams.map((s) => s.id).join(', ') || 'none';
        throw new TopologyValidationError(
          `bolt "${c.id}" subscribes to stream "${input.stream}" of "${src.id}", which nobody declared (declared: ${declared})`,
          c.id,
        );
      }
      const g = input.grouping;
      if (g.type === 'fields' || g.type === 'partialKey') {
        if (g.fields.length === 0) throw new TopologyValidationError(`bolt "${c.id}": ${g.type === 'fields' ? 'fields' : 'partial key'} grouping on "${src.id}" names no field`, c.id);
        const missing = g.fields.find((f) => !stream.fields.includes(f));
        if (missing !== undefined) {
          throw new TopologyValidationError(
            `bolt "${c.id}": ${g.type === 'fields' ? 'fields' : 'partial key'} grouping on field "${missing}", which stream "${stream.id}" of "${src.id}" does not declare (fields: ${stream.fields.join(', ') || 'none'})`,
            c.id,
          );
        }
      }
      if (g.type === 'direct' && !stream.direct) {
        throw new TopologyValidationError(`bolt "${c.id}": direct grouping on stream "${stream.id}" of "${src.id}", which is not declared direct`, c.id);
      }
      if (g.type !== 'direct' && stream.direct) {
        throw new TopologyValidationError(`bolt "${c.id}": stream "${stream.id}" of "${src.id}" is direct and needs directGrouping`, c.id);
      }
    }
    const seen = new Set<string>();
    for (const input of c.inputs) {
      const k = `${input.component}/${input.stream}`;
      if (seen.has(k)) throw new TopologyValidationError(`bolt "${c.id}" subscribes twice to stream "${input.stream}" of "${input.component}"`, c.id);
      seen.add(k);
    }
  }
}
