/**
 * Temporary directories that never outlive their process: made under the OS
 * temp dir, removed by their owner when done, and — whatever happens to the
 * owner (a thrown error, a validation failure, a test that forgets to shut
 * its cluster down, process.exit) — by an exit hook that removes what is
 * left. Only a SIGKILL leaves one behind. `hstorm local`, LocalCluster,
 * hstorm/testing and the TypeScript compiler (common/ts-module.ts) make theirs
 * here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set<string>();
let hooked = false;

function track(dir: string): string {
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const d of live) {
        try {
          rmSync(d, { recursive: true, force: true });
        } catch {
          // exiting: nothing left to report to
        }
      }
    });
  }
  return dir;
}

/** A new directory `<tmp>/<prefix>XXXXXX`, removed at exit at the latest. */
export async function makeTempDir(prefix: string): Promise<string> {
  return track(await mkdtemp(join(tmpdir(), prefix)));
}

export function makeTempDirSync(prefix: string): string {
  return track(mkdtempSync(join(tmpdir(), prefix)));
}

/** Removes a directory made here (now, rather than at exit). */
export async function removeTempDir(dir: string): Promise<void> {
  live.delete(dir);
  await rm(dir, { recursive: true, force: true });
}
