/**
 * `hstorm local` type-checks a TypeScript topology module as `tsc --noEmit`
 * would, so the mistakes tsc sees (a Storm overload the SDK types refuse, a
 * typo in a getter) are seen before tuples flow — esbuild, which compiles the
 * module, strips types without checking them. The errors are reported as
 * warnings with file:line: the run goes on, as a compile without `--noEmit`
 * would have produced the same JavaScript.
 *
 * TypeScript is not a dependency of hstorm (it is a large compiler, and a
 * project that writes TypeScript has its own, at its own version): the
 * user's own `typescript` is used, resolved from the module's directory;
 * failing that, the one beside hstorm when there is one (a development
 * checkout); failing that, the check is skipped with a note saying how to
 * have it. Options come from the module's nearest tsconfig.json (only the
 * module and what it imports are checked, never the whole project), else
 * strict ESM defaults. `hstorm` and `hstorm/testing` resolve to this very
 * package's types, as the compiled module runs against this very package.
 *
 * The check runs in a worker thread (type-check-worker.ts): a few seconds of
 * compiler work overlap with the cluster starting instead of preceding it.
 */
import { Worker } from 'node:worker_threads';
import type { TypeCheckRequest, TypeCheckResult } from './type-check-worker.js';
import { packageRoot } from '../common/package-root.js';
import { join } from 'node:path';

export type { TypeCheckResult, TypeDiagnostic } from './type-check-worker.js';

/**
 * Starts checking `modulePath` (a .ts/.mts/.cts/.tsx file); the promise never rejects: a failure is a skipped check
 * with its reason. `root`: the hstorm package whose types `hstorm` resolves to, and whose TypeScript is the fallback.
 */
export function typeCheckModule(modulePath: string, root = packageRoot()): Promise<TypeCheckResult> {
  const request: TypeCheckRequest = {
    modulePath,
    packageRoot: root,
    sdkTypes: { hstorm: join(packageRoot(), 'dist', 'topology-sdk', 'index.d.ts'), 'hstorm/testing': join(packageRoot(), 'dist', 'testing', 'index.d.ts') },
  };
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: TypeCheckResult) => {
      if (settled) return;
      settled = true;
      resolve(r);
    };
    let worker: Worker;
    try {
      worker = new Worker(new URL('./type-check-worker.js', import.meta.url), { workerData: request });
    } catch (err) {
      done({ checked: false, note: `type check skipped: ${(err as Error).message}`, diagnostics: [] });
      return;
    }
    // A check never holds the process open on its own: `hstorm local` waits for it while it runs anyway.
    worker.unref();
    worker.once('message', (r: TypeCheckResult) => done(r));
    worker.once('error', (err: Error) => done({ checked: false, note: `type check skipped: ${err.message}`, diagnostics: [] }));
    worker.once('exit', (code) => done({ checked: false, note: `type check skipped: its worker thread exited (${code})`, diagnostics: [] }));
  });
}

/** One line per diagnostic, as tsc prints them: `file:line:col - error TS2345: message`. */
export function formatTypeCheck(r: TypeCheckResult): string[] {
  if (!r.checked) return r.note ? [r.note] : [];
  const head = r.diagnostics.length === 0 ? [] : [`type check (TypeScript ${r.version ?? '?'}) found ${r.diagnostics.length} error(s); the run goes on:`];
  return [...head, ...r.diagnostics.map((d) => `${d.file ? `${d.file}:${d.line}:${d.column} - ` : ''}error TS${d.code}: ${d.message}`)];
}
