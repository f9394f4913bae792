/**
 * `supervisor.worker.user`: workers run as another user than the supervisor
 * (Storm's run-as-user, without its per-submitter mapping): submitted code
 * then cannot read the supervisor's files, its config or other daemons'
 * secrets. The user is looked up with `id` (name or uid, its primary group);
 * switching needs root, so a supervisor that is not root refuses at start.
 * So does one whose node or worker script that user cannot reach (a node
 * under /root, as nvm or scripts/with-node.sh put it there): every worker
 * would fail to start, EACCES, for as long as the supervisor ran.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import type { ConfigRecord } from '../common/config/index.js';
import { ConfigError } from '../common/errors.js';

export interface WorkerUser {
  name: string;
  uid: number;
  gid: number;
}

const KEY = 'supervisor.worker.user' as const;

/** What a worker process is: this node running hstorm's worker script. */
export interface WorkerCommand {
  execPath: string;
  entry: string;
}

export function resolveWorkerUser(config: ConfigRecord, worker?: WorkerCommand): WorkerUser | null {
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
  if (worker && self !== user.uid) checkReach(user, worker);
  return user;
}

/** Runs `node -e <read the entry>` as the user: refuses when that user cannot run this node or read the worker script. */
function checkReach(user: WorkerUser, worker: WorkerCommand): void {
  const r = spawnSync(worker.execPath, ['-e', "require('fs').accessSync(process.argv[1], 4)", worker.entry], {
    uid: user.uid,
    gid: user.gid,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
    timeout: 30_000,
  });
  const err = r.error as NodeJS.ErrnoException | undefined;
  if (err?.code === 'ETIMEDOUT') return; // a loaded machine, not a refusal: the workers' own starts will tell
  if (err) {
    throw new ConfigError(
      `${KEY}: user "${user.name}" cannot run this node (${worker.execPath}: ${err.code ?? err.message}), so no worker would start; ` +
        'run the supervisor with a node that user can reach (not one under a private home directory such as /root), or unset the key',
      KEY,
      user.name,
    );
  }
  if (r.status !== 0) {
    const why = (r.stderr ?? '').split('\n').find((l) => /Error/.test(l)) ?? `exit ${r.status ?? r.signal}`;
    throw new ConfigError(
      `${KEY}: user "${user.name}" cannot read hstorm's worker script (${worker.entry}: ${why.trim()}), so no worker would start; ` +
        'install hstorm where that user can read it, or unset the key',
      KEY,
      user.name,
    );
  }
}
