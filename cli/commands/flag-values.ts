/** Parsers for numeric flags: a bad value is a CliUsageError naming the flag, the value and what is allowed. */
import { CliUsageError } from '../../common/errors.js';

export function positiveInt(flag: string, raw: string): number {
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
    throw new CliUsageError(`invalid ${flag} "${raw}"; allowed: a whole number >= 1`);
  }
  return n;
}

export function nonNegativeSecs(flag: string, raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0) {
    throw new CliUsageError(`invalid ${flag} "${raw}"; allowed: a number of seconds >= 0`);
  }
  return n;
}
