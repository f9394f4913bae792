/**
 * Loads Dawn, the native addon of the `webgpu` package, the one way every
 * hstorm process does: the worker that runs kernels (worker/gpu/webgpu-device.ts)
 * and the supervisor's probe child (supervisor/webgpu-probe.ts, which imports
 * this file by URL).
 *
 * Why not `import('webgpu')`: Node 24's binary exports the abseil its V8 was
 * built with, and Dawn's addon carries an abseil of its own. Loaded the usual
 * way, Dawn's calls bind to Node's copy: create() prints half a million
 * "getWgslLanguageFeatures: Unknown WGSLLanguageFeatureName" lines and the
 * first adapter aborts the process in absl's hash (Node 24.0 to 24.21 with
 * webgpu 0.2.9; Node 20, 22 and 26 are fine). On Linux the addon is loaded
 * with RTLD_DEEPBIND, so that it binds its own symbols before the process's;
 * elsewhere, and where the flag does not exist (musl), as the package does.
 */
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The `webgpu` package's entry file, or null when it is not installed. */
export function webgpuPackageEntry(): string | null {
  try {
    return createRequire(import.meta.url).resolve('webgpu');
  } catch {
    return null;
  }
}

/** The dlopen flags Dawn is loaded with here, or null to load it as the package does. */
export function dawnDlopenFlags(): number | null {
  const deepBind = (constants.dlopen as Partial<Record<string, number>>)['RTLD_DEEPBIND'];
  if (process.platform !== 'linux' || deepBind === undefined) return null;
  return (constants.dlopen.RTLD_LAZY ?? 1) | deepBind;
}

/** The addon's exports (`create`, `globals`); rejects with the loader's error (a missing GLIBC_2.38, no package…). */
export async function loadDawnAddon(): Promise<unknown> {
  const entry = webgpuPackageEntry();
  if (!entry) throw new Error("Cannot find package 'webgpu'");
  const flags = dawnDlopenFlags();
  if (flags === null) return import(pathToFileURL(entry).href);
  // The file the package's index.js requires.
  const addon = join(dirname(entry), 'dist', `${process.platform}-${process.arch}.dawn.node`);
  const module = { exports: {} as unknown };
  process.dlopen(module, addon, flags);
  return module.exports;
}
