/**
 * Which config values are secrets, and the same values with the secrets
 * masked, for anything the CLI prints from a config it did not write itself —
 * a Flux file's `config:` (and its includes), `-c` on top — in a dry run and
 * in error messages. A secret is the value of a key that names one (`*.password`,
 * `*.secret`, `*.token`, …, and hstorm's own two), anywhere in a nested map,
 * and the password of a URL (`redis://user:pass@host`), wherever it sits.
 */

/** hstorm's own keys that carry a secret without saying so in their last word. */
const SECRET_KEYS = new Set(['hstorm.zookeeper.auth.payload']);
const SECRET_WORD = /(password|passwd|secret|token|apikey|api[._-]key|credentials?)$/i;
/** `scheme://userinfo@`: userinfo runs to the last `@` before the path, so a password with `@` in it is masked whole. */
const URL_USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#\s]*)@/i;

/** What a masked value reads as. */
export const MASK = '***';

export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key) || SECRET_WORD.test(key);
}

/** `redis://user:pass@host` → `redis://user:***@host`; a URL without a password is returned as it is. */
export function maskUrlPassword(text: string): string {
  return text.replace(URL_USERINFO, (whole, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon < 0 ? whole : `${scheme}${userinfo.slice(0, colon)}:${MASK}@`;
  });
}

/** `value` with every secret in it masked (a copy; plain data in, plain data out). */
export function maskSecrets(key: string, value: unknown): unknown {
  if (isSecretKey(key) && value !== null && value !== undefined && value !== '') return MASK;
  if (typeof value === 'string') return maskUrlPassword(value);
  if (Array.isArray(value)) return value.map((v) => maskSecrets('', v));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(k, v)]));
  return value;
}

/** Whether `value`, the value of `key`, holds a secret anywhere. */
export function holdsSecret(key: string, value: unknown): boolean {
  return JSON.stringify(maskSecrets(key, value)) !== JSON.stringify(value);
}

/** A config record with its secrets masked, for printing. */
export function maskConfig(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).map(([k, v]) => [k, maskSecrets(k, v)]));
}
