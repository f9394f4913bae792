/**
 * Checks a topology definition as a whole, so that a bad topology fails when
 * it is built rather than when tuples start to flow (and nimbus checks a
 * submitted one again). Against the config it runs with: validate-bounds.ts.
 */
import { CHECKPOINT_STREAM, type ComponentDef, type TopologyDef } from '../common/topology-def.js';
import { TopologyValidationError, WindowValidationError } from '../common/errors.js';

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
    if (c.window?.timestampField) checkTimestampField(c, c.window.timestampField, byId);
  }
}

/**
 * An event-time window reads its timestamp field from every data tuple: a field an input stream does not declare
 * would fail every tuple of it at run time (HSTORM_ERR_WORKER_TUPLE_FIELD, the run itself looking fine). Found here,
 * when the topology is built and again at submit. The checkpoint stream never reaches the window.
 */
function checkTimestampField(c: ComponentDef, field: string, byId: ReadonlyMap<string, ComponentDef>): void {
  for (const input of c.inputs) {
    if (input.stream === CHECKPOINT_STREAM) continue;
    const stream = byId.get(input.component)?.streams.find((s) => s.id === input.stream);
    if (!stream || stream.fields.includes(field)) continue;
    throw new WindowValidationError(
      `bolt "${c.id}": withTimestampField("${field}") names a field that stream "${stream.id}" of "${input.component}" does not declare ` +
        `(fields: ${stream.fields.join(', ') || 'none'}): every tuple of it would fail. Name one of those fields, declare "${field}" in "${input.component}"'s declareOutputFields, ` +
        'or read the time with withTimestampExtractor(fn)',
      c.id,
    );
  }
}
