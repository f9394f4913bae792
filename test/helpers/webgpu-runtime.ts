/**
 * The node binary that loads Dawn with a WebGPU adapter here, for the tests
 * that run the real WebGPU path: scripts/webgpu-runtime.sh prepares it (a
 * private newer libc where glibc < 2.38, and Mesa's software Vulkan driver
 * where there is no GPU) and prints its path. When it cannot be prepared the
 * reason comes back, and those tests are reported as pending with it —
 * never passed silently.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './cluster-processes.js';

export type WebGpuRuntime = { node: string } | { unavailable: string };

let cached: WebGpuRuntime | null = null;

export function webgpuRuntime(): WebGpuRuntime {
  if (cached) return cached;
  const r = spawnSync('bash', [join(PACKAGE_ROOT, 'scripts', 'webgpu-runtime.sh'), '--software-adapter'], { encoding: 'utf8', timeout: 600_000 });
  const node = r.stdout?.trim().split('\n').pop();
  cached =
    r.status === 0 && node
      ? { node }
      : { unavailable: (r.stderr || r.error?.message || `webgpu-runtime.sh exited with ${r.status}`).trim().split('\n').pop()! };
  return cached;
}

/** Skips the calling suite/test with the reason when there is no WebGPU runtime (printed, so it is seen in CI logs). */
export function requireWebGpu(ctx: Mocha.Context): string {
  const rt = webgpuRuntime();
  if ('node' in rt) return rt.node;
  console.log(`      WebGPU runtime unavailable, skipping: ${rt.unavailable}`);
  ctx.skip();
}
