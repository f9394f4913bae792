/**
 * The user a test server runs as. PostgreSQL refuses to run as root and the
 * Erlang VM under RabbitMQ should not, so when the tests run as root (CI
 * containers) each server runs as the system user its Debian package created
 * (`postgres`, `rabbitmq`), made here when missing (a server built from
 * source); otherwise as whoever runs the tests.
 */
import { execFileSync } from 'node:child_process';
import { chown, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface ServerUser {
  uid: number;
  gid: number;
}

/** undefined when the tests do not run as root: the server then runs as the current user. */
export function serverUser(name: string): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = (): ServerUser => ({
    uid: Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim()),
  });
  try {
    return lookup();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
    return lookup();
  }
}

/** Hands `dir` and everything in it to `user` (a no-op when there is none). */
export async function giveTo(dir: string, user: ServerUser | undefined): Promise<void> {
  if (!user) return;
  await chown(dir, user.uid, user.gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await giveTo(path, user);
    else await chown(path, user.uid, user.gid);
  }
}
