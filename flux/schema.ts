/**
 * The keys of a Flux file and what each takes, as zod schemas (Storm's
 * flux-core model: TopologyDef, ObjectDef, VertexDef, StreamDef,
 * GroupingDef, IncludeDef), plus hstorm's own keys on spouts and bolts
 * (`gpu`). Objects are strict: a key Flux does not have is an error with a
 * "did you mean", never ignored.
 */
import { z } from 'zod';
import { GROUPING_TYPES } from './runtime/plan.js';

const id = z.string().min(1);
const args = z.array(z.unknown());

const property = z
  .object({ name: z.string().min(1), value: z.unknown().optional(), ref: id.optional() })
  .strict()
  .refine((p) => (p.value === undefined) !== (p.ref === undefined), { message: 'a property takes a value or a ref (one of them)' });

const configMethod = z.object({ name: z.string().min(1), args: args.optional() }).strict();

/** Flux's ObjectDef: how to make an object. */
const objectShape = {
  className: z.string().min(1),
  constructorArgs: args.optional(),
  properties: z.array(property).optional(),
  configMethods: z.array(configMethod).optional(),
  factory: z.string().min(1).optional(),
  factoryArgs: args.optional(),
};

const objectSchema = z.object(objectShape).strict();
const componentSchema = z.object({ id, ...objectShape }).strict();

const count = z.number().int().min(1);
const megabytes = z.number().min(0);

const vertexSchema = z
  .object({
    id,
    ...objectShape,
    parallelism: count.default(1),
    numTasks: count.optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    cpuLoad: z.number().min(0).optional(),
    onHeapMemoryLoad: megabytes.optional(),
    offHeapMemoryLoad: megabytes.optional(),
    /** hstorm: `true` or `{ memoryMB }` marks a GPU component (`.gpu()`). */
    gpu: z.union([z.boolean(), z.object({ memoryMB: megabytes }).strict()]).optional(),
  })
  .strict();

const groupingSchema = z
  .object({
    type: z.enum(GROUPING_TYPES),
    args: z.array(z.string().min(1)).optional(),
    streamId: z.string().min(1).optional(),
    customClass: objectSchema.optional(),
  })
  .strict();

const streamSchema = z.object({ name: z.string().optional(), from: id, to: id, grouping: groupingSchema }).strict();

const includeSchema = z.object({ resource: z.boolean().default(false), file: z.string().min(1), override: z.boolean().default(false) }).strict();

export const fluxFileSchema = z
  .object({
    name: z.string().min(1).optional(),
    config: z.record(z.string(), z.unknown()).optional(),
    components: z.array(componentSchema).optional(),
    spouts: z.array(vertexSchema).optional(),
    bolts: z.array(vertexSchema).optional(),
    streams: z.array(streamSchema).optional(),
    includes: z.array(includeSchema).optional(),
    // Flux keys hstorm does not run: refused by name (check-flux.ts), not as unknown keys.
    topologySource: z.unknown().optional(),
    workerHooks: z.unknown().optional(),
  })
  .strict();

/** The keys a Flux file may have at its top level. */
export const FLUX_TOP_LEVEL_KEYS: readonly string[] = Object.keys(fluxFileSchema.shape);

export type ComponentDefinition = z.output<typeof componentSchema>;
export type VertexDefinition = z.output<typeof vertexSchema>;
export type StreamDefinition = z.output<typeof streamSchema>;
export type ObjectDefinition = z.output<typeof objectSchema>;
