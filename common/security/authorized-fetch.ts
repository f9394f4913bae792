/** A `fetch` that sends nimbus's shared secret with every request (supervisors' bundle and key downloads). */
import { bearerHeader } from './bearer-token.js';

export function fetchWithSecret(base: typeof fetch, secret: string | null): typeof fetch {
  if (secret === null) return base;
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', bearerHeader(secret).authorization);
    return base(input, { ...init, headers });
  };
}
