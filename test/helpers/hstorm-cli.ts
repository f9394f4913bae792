/**
 * Runs the real `hstorm` binary as a user would, asynchronously (a test that
 * hosts nimbus in-process must keep its event loop serving while the command
 * talks to it). A command that does not end within `timeoutMs` is killed and
 * the promise rejects with what it printed.
 */
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../common/package-root.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runHstorm(args: readonly string[], opts: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [join(packageRoot(), 'bin', 'hstorm.js'), ...args], { cwd: opts.cwd ?? tmpdir(), env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`hstorm ${args.join(' ')} did not end within ${timeoutMs / 1000} s\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}
