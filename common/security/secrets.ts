/**
 * Shared secrets named in config: each comes either inline (`<key>`) or from a
 * file (`<key>.file`, which wins), so a secret need not sit in a YAML file
 * checked into a repository or in a `-c` flag visible in `ps`. Read once, at
 * the start of the process that needs it.
 */
import { readFileSync } from 'node:fs';
import type { ConfigRecord } from '../config/config.js';
import { ConfigError } from '../errors.js';

/** The config keys that name a secret; each has a `.file` twin. */
type SecretKey = 'nimbus.auth.secret' | 'hstorm.zookeeper.auth.payload';

/** The secret `key` names, from `${key}.file` when set; null when neither is set. */
export function readSecret(config: ConfigRecord, key: SecretKey): string | null {
  const fileKey = `${key}.file` as const;
  const file = config[fileKey];
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`${fileKey}: cannot read ${file}: ${(err as Error).message}`, fileKey, file);
    }
    const secret = text.trim();
    if (secret.length === 0) throw new ConfigError(`${fileKey}: ${file} is empty; allowed: a file holding the secret`, fileKey, file);
    return secret;
  }
  return config[key] ?? null;
}

/** The nimbus API secret (`nimbus.auth.secret[.file]`), at least 16 characters. */
export function nimbusSecret(config: ConfigRecord): string | null {
  const s = readSecret(config, 'nimbus.auth.secret');
  if (s !== null && s.length < 16) {
    throw new ConfigError('nimbus.auth.secret.file: the secret must have at least 16 characters', 'nimbus.auth.secret.file');
  }
  return s;
}

/** ZooKeeper digest credentials (`hstorm.zookeeper.auth.payload[.file]`), `user:password`. */
export function zookeeperAuthPayload(config: ConfigRecord): string | null {
  const s = readSecret(config, 'hstorm.zookeeper.auth.payload');
  if (s !== null && !/^[^:\s]+:\S+$/.test(s)) {
    throw new ConfigError('hstorm.zookeeper.auth.payload.file: the file must hold user:password', 'hstorm.zookeeper.auth.payload.file');
  }
  return s;
}
