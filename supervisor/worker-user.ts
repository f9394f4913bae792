/**
 * `supervisor.worker.user`: workers run as another user than the supervisor
 * (Storm's run-as-user, without its per-submitter mapping): submitted code
 * then cannot read the supervisor's files, its config or other daemons'
 * secrets. The user is looked up with `id` (name or uid, its primary group);
 * switching needs root, so a supervisor that is not root refuses at start.
 */
import { execFileSync } from 'node:child_process';
import type { ConfigRecord } from '../common/config/index.js';
import { ConfigError } from '../common/errors.js';

export interface WorkerUser {
  name: string;
  uid: number;
  gid: number;
}

const KEY = 'supervisor.worker.user' as const;

export function resolveWorkerUser(config: ConfigRecord): WorkerUser | null {
  const name = config[KEY];
  if (!name) return null;
  const lookup = (flag: '-u' | '-g'): number => {
    try {
      return Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim());
    } catch (err) {
      throw new ConfigError(`${KEY}: no user "${name}" on this machine (id ${flag} ${name}: ${(err as Error).message.split('\n')[0]}); allowed: an existing user name or uid`, KEY, name);
    }
  };
  const user = { name, uid: lookup('-u'), gid: lookup('-g') };
  const self = process.getuid?.();
  if (self !== undefined && self !== 0 && self !== user.uid) {
    throw new ConfigError(`${KEY}: running workers as "${name}" needs a supervisor running as root (this one runs as uid ${self}); unset the key or start the supervisor as root`, KEY, name);
  }
  return user;
}
