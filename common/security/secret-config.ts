/**
 * A config the CLI prints without having written it — a Flux file's
 * `config:` and its includes, `-c` on top — in a dry run and in error
 * messages, with its secrets masked by the one redaction every shown config
 * goes through (redaction.ts: the keys that name a secret, anywhere in a
 * nested map, and the password of any URL).
 */
import { redactConfig } from './redaction.js';

/** A config record with its secrets masked, for printing. */
export function maskConfig(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return redactConfig(config);
}

/** Whether `value`, the value of `key`, holds a secret anywhere. */
export function holdsSecret(key: string, value: unknown): boolean {
  const one = { [key]: value };
  return JSON.stringify(redactConfig(one)) !== JSON.stringify(one);
}
