/**
 * `supervisor.worker.user`: workers run as another user than the supervisor
 * (Storm's run-as-user, without its per-submitter mapping): submitted code
 * then cannot read the supervisor's files, its config or other daemons'
 * secrets. The user is looked up with `id` (name or uid, its primary group);
 * switching needs root, so a supervisor that is not root refuses at start.
 * So does one whose node or worker script that user cannot reach (a node
 * under /root, as nvm or scripts/with-node.sh put it there), or one whose
 * data dir it cannot search (a hstorm.local.dir under a 0700 directory):
 * every worker would fail to start, EACCES, or fail to write its heartbeat
 * and be restarted as hung, for as long as the supervisor ran.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { ConfigRecord } from '../common/config/index.js';
import { ConfigError } from '../common/errors.js';

export interface WorkerUser {
  name: string;
  uid: number;
  gid: number;
}

const KEY = 'supervisor.worker.user' as const;

/** What a worker process is: this node running hstorm's worker script, and the directories it must reach. */
export interface WorkerCommand {
  execPath: string;
  entry: string;
  /** Directories under hstorm.local.dir the worker must be able to search (its heartbeat's, its code's); made when missing. */
  dirs?: readonly string[];
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

/**
 * Runs `node -e <check>` as the user: refuses when that user cannot run this node, read the worker script or search
 * one of the directories a worker needs (its heartbeat directory under hstorm.local.dir, its topology's code).
 */
function checkReach(user: WorkerUser, worker: WorkerCommand): void {
  const dirs = worker.dirs ?? [];
  for (const d of dirs) mkdirSync(d, { recursive: true });
  const check =
    "const fs = require('fs'); const [entry, ...dirs] = process.argv.slice(1);" +
    "for (const [p, mode] of [[entry, fs.constants.R_OK], ...dirs.map((d) => [d, fs.constants.X_OK])]) {" +
    "  try { fs.accessSync(p, mode); } catch (e) { process.stderr.write(JSON.stringify({ path: p, code: e.code })); process.exit(3); } }";
  const r = spawnSync(worker.execPath, ['-e', check, worker.entry, ...dirs], {
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
  if (r.status === 0) return;
  let refused: { path?: string; code?: string } = {};
  try {
    refused = JSON.parse(r.stderr ?? '') as typeof refused;
  } catch {
    // node itself failed: its stderr says why
  }
  if (refused.path !== undefined && refused.path !== worker.entry) {
    throw new ConfigError(
      `${KEY}: user "${user.name}" cannot reach ${refused.path} (${refused.code ?? 'refused'}), where its workers keep their heartbeat or code, so every worker would fail: ` +
        'a directory on the way (hstorm.local.dir or one above it) is not searchable by that user; make it searchable (chmod o+x, or g+x with that group) — nothing there needs to be writable — or choose another hstorm.local.dir',
      KEY,
      user.name,
    );
  }
  const why = refused.code ?? (r.stderr ?? '').split('\n').find((l) => /Error/.test(l))?.trim() ?? `exit ${r.status ?? r.signal}`;
  throw new ConfigError(
    `${KEY}: user "${user.name}" cannot read hstorm's worker script (${worker.entry}: ${why}), so no worker would start; ` +
      'install hstorm where that user can read it, or unset the key',
    KEY,
    user.name,
  );
}
