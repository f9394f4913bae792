/**
 * Where the hstorm package is installed: the default worker entry
 * (`dist/worker/main.js`), the target of the `node_modules/hstorm` link
 * that lets a downloaded bundle's `import … from 'hstorm'` resolve, and the
 * version nimbus reports (Storm UI's `stormVersion`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === 'hstorm') return (cached = dir);
      } catch {
        // not ours; keep walking up
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the hstorm package root above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

export function defaultWorkerEntry(): string {
  return join(packageRoot(), 'dist', 'worker', 'main.js');
}

let version: string | null = null;

/** The `version` of hstorm's package.json. */
export function packageVersion(): string {
  if (version) return version;
  const v = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown }).version;
  return (version = typeof v === 'string' ? v : 'unknown');
}
