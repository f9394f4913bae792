/**
 * Probing for a WebGPU adapter through the `webgpu` package (Dawn, as gpu.js
 * uses it). Probe, don't assume: the prebuilt binary needs glibc ≥ 2.38 and a
 * Vulkan loader, and a broken driver can hang inside native code where no
 * timer of ours would fire — so the probe runs in a child process that is
 * killed after a timeout, and any failure is a clean "no adapter" with why.
 */
import { spawn } from 'node:child_process';
import { webgpuPackageEntry } from '../common/dawn-addon.js';
import { isSoftwareAdapter, type WebGpuAdapterInfo } from '../common/webgpu-adapter.js';

export type { WebGpuAdapterInfo };

export type WebGpuProbe = { ok: true; adapter: WebGpuAdapterInfo } | { ok: false; why: string };

/** Runs in the child: loads Dawn, asks for an adapter over Vulkan, prints one JSON line. */
const PROBE_SCRIPT = `
const say = (o) => { process.stdout.write(JSON.stringify(o) + '\\n'); process.exit(0); };
try {
  const { loadDawnAddon } = await import(process.env.HSTORM_DAWN_LOADER);
  const { create } = await loadDawnAddon();
  const gpu = create(['backend=vulkan']);
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) say({ ok: false, why: 'no WebGPU adapter over Vulkan' });
  const i = adapter.info ?? {};
  say({ ok: true, fallback: Boolean(adapter.isFallbackAdapter ?? i.isFallbackAdapter), adapter: {
    vendor: String(i.vendor ?? ''), architecture: String(i.architecture ?? ''),
    device: String(i.device ?? ''), description: String(i.description ?? '') } });
} catch (e) { say({ ok: false, why: String((e && e.message) || e).split('\\n')[0] }); }
`;

/** Reads the child's last JSON line; anything else is a failed probe. */
export function parseProbeOutput(stdout: string): WebGpuProbe {
  const line = stdout.trim().split(/\r?\n/).pop() ?? '';
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return { ok: false, why: 'the WebGPU probe printed no result' };
  }
  if (typeof o !== 'object' || o === null) return { ok: false, why: 'the WebGPU probe printed no result' };
  const r = o as { ok?: unknown; why?: unknown; fallback?: unknown; adapter?: Partial<WebGpuAdapterInfo> };
  if (r.ok !== true || !r.adapter) return { ok: false, why: typeof r.why === 'string' ? r.why : 'no WebGPU adapter' };
  const adapter: WebGpuAdapterInfo = {
    vendor: String(r.adapter.vendor ?? ''),
    architecture: String(r.adapter.architecture ?? ''),
    device: String(r.adapter.device ?? ''),
    description: String(r.adapter.description ?? ''),
  };
  if (isSoftwareAdapter(adapter, r.fallback === true)) {
    return { ok: false, why: `the WebGPU adapter is a software one (${adapter.description || adapter.architecture || adapter.vendor})` };
  }
  return { ok: true, adapter };
}

export function probeWebGpu(timeoutMs = 8_000): Promise<WebGpuProbe> {
  if (!webgpuPackageEntry()) return Promise.resolve({ ok: false, why: 'the webgpu package is not installed' });
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', PROBE_SCRIPT], {
      // The child loads Dawn as workers do (common/dawn-addon.ts: RTLD_DEEPBIND, which Node 24 needs).
      env: { ...process.env, HSTORM_DAWN_LOADER: import.meta.resolve('../common/dawn-addon.js') },
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let stdout = '';
    let stderr = '';
    let settled = false;
    const done = (r: WebGpuProbe): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ ok: false, why: `the WebGPU probe did not answer within ${timeoutMs} ms` });
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => done({ ok: false, why: `could not start the WebGPU probe: ${e.message}` }));
    child.on('close', (code, signal) => {
      const r = parseProbeOutput(stdout);
      if (!r.ok && !stdout.trim()) {
        const err = stderr.trim().split(/\r?\n/).find((l) => l.trim()) ?? '';
        return done({ ok: false, why: `the WebGPU probe exited (${signal ?? code})${err ? `: ${err}` : ''}` });
      }
      done(r);
    });
  });
}
