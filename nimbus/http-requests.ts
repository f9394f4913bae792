/**
 * The JSON bodies the HTTP API accepts, as zod schemas: a malformed body is a
 * 400 naming the field, never an exception deeper in nimbus.
 */
import { z } from 'zod';
import { BadRequestError } from './errors.js';

/** `POST /api/v1/topologies`: the topology and its code, a gzip bundle as base64. */
export const submitRequestSchema = z.object({
  name: z.string(),
  def: z.unknown(),
  config: z.record(z.string(), z.unknown()).default({}),
  /** base64 of the gzip bundle. */
  bundle: z.string().min(1),
  /** sha256 (hex) of the gzip bytes. */
  sha256: z.string(),
  /** Start deactivated: Storm's SubmitOptions with initial status INACTIVE (`hstorm submit --inactive`, Flux's flag). */
  inactive: z.boolean().default(false),
});
export type SubmitRequest = z.input<typeof submitRequestSchema>;

export const killRequestSchema = z.object({ waitSecs: z.number().min(0).optional() }).default({});
export type KillRequest = z.input<typeof killRequestSchema>;

export const rebalanceRequestSchema = z
  .object({
    workers: z.number().int().min(1).optional(),
    waitSecs: z.number().min(0).optional(),
    // Storm's `rebalance -e component=N`: new parallelism per component.
    executors: z.record(z.string(), z.number().int().min(1)).optional(),
  })
  .default({});
export type RebalanceRequest = z.input<typeof rebalanceRequestSchema>;

export const logLevelRequestSchema = z.object({ level: z.string().min(1), timeoutSecs: z.number().positive().optional() });

export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const r = schema.safeParse(body ?? undefined);
  if (!r.success) {
    const issue = r.error.issues[0];
    const field = issue?.path.join('.') || undefined;
    throw new BadRequestError(`invalid request body${field ? ` at "${field}"` : ''}: ${issue?.message ?? 'malformed'}`, field);
  }
  return r.data;
}

/** Strict base64 (Buffer.from would silently skip garbage characters). */
export function decodeBase64(text: string, field: string): Buffer {
  const clean = text.replace(/\s+/g, '');
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) {
    throw new BadRequestError(`"${field}" is not valid base64`, field);
  }
  return Buffer.from(clean, 'base64');
}
