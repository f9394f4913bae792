/**
 * Maps errors to HTTP responses `{ error: { code, message } }`: our own codes
 * to 4xx by kind, fastify's body/parse errors to 400/413/415 with a code of
 * ours, everything else to 500. Whatever a request sends, the answer is a
 * JSON error and nimbus keeps serving.
 */
import { ClusterStateError } from '../common/cluster-state.js';
import { ConfigError, HstormError, TopologyValidationError } from '../common/errors.js';
import { BundleTooLargeError } from './bundle-upload.js';
import { BadRequestError, BundleInvalidError, ComponentNotFoundError, TopologyExistsError, TopologyNotFoundError, TopologyStateError } from './errors.js';

export interface HttpErrorBody {
  error: { code: string; message: string };
}

export function httpError(err: unknown): { status: number; body: HttpErrorBody } {
  const body = (code: string, message: string): HttpErrorBody => ({ error: { code, message } });
  if (err instanceof TopologyNotFoundError || err instanceof ComponentNotFoundError) return { status: 404, body: body(err.code, err.message) };
  if (err instanceof TopologyExistsError || err instanceof TopologyStateError) return { status: 409, body: body(err.code, err.message) };
  if (err instanceof BundleTooLargeError) return { status: 413, body: body(err.code, err.message) };
  if (err instanceof BadRequestError || err instanceof BundleInvalidError || err instanceof ConfigError || err instanceof TopologyValidationError) {
    return { status: 400, body: body(err.code, err.message) };
  }
  if (err instanceof ClusterStateError) {
    return { status: 503, body: body(err.code, `cluster state unavailable: ${err.message}`) };
  }
  if (err instanceof HstormError) return { status: 500, body: body(err.code, err.message) };
  // fastify's own errors (bad JSON, body too large, unsupported content type) carry a 4xx statusCode.
  const e = err as { statusCode?: unknown; code?: unknown; message?: unknown };
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  const message = typeof e.message === 'string' ? e.message : String(err);
  if (status >= 400 && status < 500) {
    const code = status === 413 ? 'HSTORM_ERR_NIMBUS_BODY_TOO_LARGE' : status === 415 ? 'HSTORM_ERR_NIMBUS_UNSUPPORTED_MEDIA' : 'HSTORM_ERR_NIMBUS_BAD_REQUEST';
    return { status, body: body(code, `${message}${typeof e.code === 'string' ? ` (${e.code})` : ''}`) };
  }
  return { status: 500, body: body('HSTORM_ERR_INTERNAL', message) };
}
