/** What a component's declareOutputFields receives: the streams it emits on. */
import { DEFAULT_STREAM, type StreamDef } from '../common/topology-def.js';
import { TopologyValidationError } from '../common/errors.js';
import { fieldNames, type Fields } from './fields.js';

export class OutputFieldsDeclarer {
  private readonly streams = new Map<string, StreamDef>();

  constructor(private readonly component: string) {}

  /** Declares the default stream: `declare(['word'])` or Storm's `declare(new Fields('word'))`. */
  declare(fields: Fields | readonly string[], options: { direct?: boolean } = {}): this {
    return this.declareStream(DEFAULT_STREAM, fields, options);
  }

  declareStream(streamId: string, declared: Fields | readonly string[], options: { direct?: boolean } = {}): this {
    const fields = fieldNames(declared, `component "${this.component}", stream "${streamId}"`);
    if (!streamId || streamId.startsWith('__')) {
      throw new TopologyValidationError(`component "${this.component}": invalid stream id "${streamId}" (ids starting with "__" are reserved)`, this.component);
    }
    if (this.streams.has(streamId)) {
      throw new TopologyValidationError(`component "${this.component}" declares stream "${streamId}" twice`, this.component);
    }
    const dup = fields.find((f, i) => fields.indexOf(f) !== i);
    if (dup !== undefined) {
      throw new TopologyValidationError(`component "${this.component}", stream "${streamId}": field "${dup}" declared twice`, this.component);
    }
    this.streams.set(streamId, { id: streamId, fields: [...fields], direct: options.direct ?? false });
    return this;
  }

  result(): StreamDef[] {
    return [...this.streams.values()];
  }
}
