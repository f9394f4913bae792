/**
 * Turns a topology module into what `hstorm submit` uploads: one ESM file
 * (esbuild) with `hstorm` and Node's builtins left external — everything else
 * the module imports travels inside — gzipped, with its sha256. A module that
 * reaches the SDK by relative path (an example inside this repository) gets
 * that import rewritten to `hstorm` too, so the worker's SDK and the bundle's
 * are one and the same.
 */
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';
import { TopologyLoadError } from '../common/errors.js';
import { packageRoot } from '../common/package-root.js';

export interface TopologyBundle {
  gz: Buffer;
  sha256: string;
  /** Size of the JavaScript before gzip. */
  rawBytes: number;
}

function sdkAsExternal(): Plugin {
  const sdkDirs = [join(packageRoot(), 'dist', 'topology-sdk'), join(packageRoot(), 'topology-sdk')];
  return {
    name: 'hstorm-sdk-external',
    setup(b) {
      b.onResolve({ filter: /^\.\.?\// }, (args) => {
        const abs = resolve(args.resolveDir, args.path);
        if (sdkDirs.some((d) => abs === join(d, 'index.js') || abs === join(d, 'index.ts') || abs === d)) return { path: 'hstorm', external: true };
        return undefined;
      });
    },
  };
}

export async function bundleTopology(modulePath: string): Promise<TopologyBundle> {
  let code: Uint8Array;
  try {
    const out = await build({
      entryPoints: [resolve(modulePath)],
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      external: ['hstorm', 'hstorm/*'],
      // Stack traces in the workers name the user's files and lines (workers enable source maps).
      sourcemap: 'inline',
      sourcesContent: false,
      plugins: [sdkAsExternal()],
      // CommonJS dependencies bundled into ESM still call require() for builtins.
      banner: { js: "import { createRequire as __hstormCreateRequire } from 'node:module'; const require = __hstormCreateRequire(import.meta.url);" },
    });
    const file = out.outputFiles[0];
    if (!file) throw new Error('esbuild produced no output');
    code = file.contents;
  } catch (err) {
    throw new TopologyLoadError(`cannot bundle ${modulePath}: ${(err as Error).message}`, modulePath, { cause: err });
  }
  const gz = gzipSync(code, { level: 9 });
  return { gz, sha256: createHash('sha256').update(gz).digest('hex'), rawBytes: code.length };
}
