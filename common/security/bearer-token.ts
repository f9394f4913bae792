/**
 * `Authorization: Bearer <secret>` on nimbus's HTTP API: the header a client
 * sends and the check nimbus makes. The comparison hashes both sides first so
 * it takes the same time whatever the length or the first wrong byte
 * (timingSafeEqual alone needs equal lengths and would leak the length).
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export function bearerHeader(secret: string): { authorization: string } {
  return { authorization: `Bearer ${secret}` };
}

/** True when `header` (an Authorization header value) carries `secret`. */
export function bearerMatches(header: string | undefined, secret: string): boolean {
  if (typeof header !== 'string') return false;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const given = createHash('sha256').update(m?.[1] ?? '').digest();
  const wanted = createHash('sha256').update(secret).digest();
  return timingSafeEqual(given, wanted) && m !== null;
}
