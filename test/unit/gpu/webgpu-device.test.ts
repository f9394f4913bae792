import assert from 'node:assert/strict';
import { chooseAdapter, parseAdapterList, WebGpuDevices, type DawnModule } from '../../../worker/gpu/webgpu-device.js';
import { driPrimeTag, gpuPinningEnv, installGpuRuntime } from '../../../worker/gpu/gpu-runtime.js';
import { selectGpuBackend } from '../../../worker/gpu/gpu-backend.js';
import { isSoftwareAdapter, webgpuLabel } from '../../../common/webgpu-adapter.js';
import { fakeContext } from '../../helpers/fake-context.js';
import type { Logger } from '../../../common/logger.js';
import type { WorkerLaunch } from '../../../common/worker-env.js';

const DAWN_REFUSAL = `no adapter with backend 'vulkan' and name 'x' found
Available adapters:
 * backend: 'vulkan', name: 'NVIDIA H100 80GB HBM3'
 * backend: 'vulkan', name: 'NVIDIA H100 80GB HBM3'
 * backend: 'vulkan', name: 'llvmpipe (LLVM 15.0.6, 256 bits)'`;

const LLVMPIPE = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe (LLVM 15.0.6, 256 bits)', description: 'llvmpipe: Mesa 22.3.6' };
const H100 = { vendor: 'nvidia', architecture: 'hopper', device: 'NVIDIA H100 80GB HBM3', description: 'NVIDIA: 550.54.14' };

/**
 * A Dawn that behaves like webgpu 0.2.9 where it matters: it lists its adapters
 * when refusing an unknown name, its devices reject any value for
 * `onuncapturederror`, and error scopes report what `failNext` says.
 */
function fakeDawn(adapters: { info: typeof H100; fallback?: boolean }[]) {
  const state = { flags: [] as string[][], failNext: null as string | null, devices: [] as FakeDevice[] };
  class FakeDevice {
    private scopes: (string | null)[] = [];
    private loseIt!: (info: { reason: string; message: string }) => void;
    readonly lost = new Promise<{ reason: string; message: string }>((r) => (this.loseIt = r));
    destroyed = false;
    pushErrorScope(): void {
      this.scopes.push(null);
    }
    popErrorScope(): Promise<{ message: string } | null> {
      this.scopes.pop();
      const m = state.failNext;
      state.failNext = null;
      return Promise.resolve(m ? { message: m } : null);
    }
    destroy(): void {
      this.destroyed = true;
      this.loseIt({ reason: 'destroyed', message: 'device was destroyed' });
    }
  }
  Object.defineProperty(FakeDevice.prototype, 'onuncapturederror', {
    get: () => null,
    set: () => {
      throw new TypeError('object is not of the correct interface type\ninvalid value to onuncapturederror');
    },
    enumerable: true,
    configurable: true,
  });
  const dawn: DawnModule = {
    globals: { GPUBufferUsage: { MAP_READ: 1 } },
    create(flags: string[]) {
      state.flags.push(flags);
      const name = flags.find((f) => f.startsWith('adapter='))?.slice('adapter='.length);
      return {
        requestAdapter() {
          const match = adapters.filter((a) => !name || a.info.device.includes(name));
          if (name && match.length === 0) return Promise.reject(new Error(`no adapter with backend 'vulkan' and name '${name}' found\nAvailable adapters:\n${adapters.map((a) => ` * backend: 'vulkan', name: '${a.info.device}'`).join('\n')}`));
          const a = match[0];
          if (!a) return Promise.resolve(null);
          return Promise.resolve({
            info: a.info,
            isFallbackAdapter: a.fallback ?? false,
            requestDevice: () => {
              const d = new FakeDevice();
              state.devices.push(d);
              return Promise.resolve(d);
            },
          });
        },
      };
    },
  };
  return { dawn, state };
}

describe('WebGPU adapters (Dawn)', () => {
  const log = fakeContext().log;

  it('reads the adapters Dawn lists when it refuses a name', () => {
    assert.deepEqual(parseAdapterList(DAWN_REFUSAL), ['NVIDIA H100 80GB HBM3', 'NVIDIA H100 80GB HBM3', 'llvmpipe (LLVM 15.0.6, 256 bits)']);
    assert.deepEqual(parseAdapterList('something else'), []);
  });

  it('verifies the board only when one adapter of its model is visible', () => {
    const target = { name: 'NVIDIA H100 80GB HBM3', gpuId: 'GPU-2f1c', pciBusId: '00000000:41:00.0' };
    const one = chooseAdapter(['NVIDIA H100 80GB HBM3', 'llvmpipe (LLVM 15.0.6, 256 bits)'], target);
    assert.ok(!('error' in one));
    assert.deepEqual([one.filter, one.verified, one.caveat], ['NVIDIA H100 80GB HBM3', true, null]);
    assert.match(one.identity, /PCI 00000000:41:00\.0, GPU GPU-2f1c; the only adapter of that name/);

    const two = chooseAdapter(parseAdapterList(DAWN_REFUSAL), target);
    assert.ok(!('error' in two));
    assert.equal(two.verified, false);
    assert.match(two.caveat!, /2 identical adapters .* may not be PCI 00000000:41:00\.0/);

    const none = chooseAdapter(['llvmpipe (LLVM 15.0.6, 256 bits)'], target);
    assert.ok('error' in none);
    assert.match(none.error, /no WebGPU adapter is named "NVIDIA H100 80GB HBM3".*Dawn sees: "llvmpipe/);
    assert.ok('error' in chooseAdapter([], null));
    const any = chooseAdapter(['a', 'b'], null);
    assert.ok(!('error' in any) && any.filter === null && !any.verified);
  });

  it('tells software adapters from GPUs, and labels them so', () => {
    assert.equal(isSoftwareAdapter(LLVMPIPE), true);
    assert.equal(isSoftwareAdapter({ vendor: 'google', architecture: '', device: 'SwiftShader Device (Subzero)', description: '' }), true);
    assert.equal(isSoftwareAdapter(H100), false);
    assert.equal(isSoftwareAdapter(H100, true), true, "Dawn's isFallbackAdapter wins");
    assert.equal(webgpuLabel({ ...LLVMPIPE, software: true }), 'webgpu (software adapter: llvmpipe (LLVM 15.0.6, 256 bits))');
    assert.equal(webgpuLabel({ ...H100, software: false }), 'webgpu (NVIDIA H100 80GB HBM3)');
  });

  it("opens the assigned board, and gives gpu.js devices that accept its onuncapturederror (Dawn's refuses any value)", async () => {
    const { dawn, state } = fakeDawn([{ info: LLVMPIPE, fallback: true }, { info: H100 }]);
    const r = await WebGpuDevices.open({ name: 'NVIDIA H100 80GB HBM3', gpuId: 'GPU-1' }, { timeoutMs: 1000, allowSoftware: false, log, loadDawn: () => Promise.resolve(dawn) });
    assert.ok(r.ok);
    assert.deepEqual(state.flags.at(-1), ['backend=vulkan', 'adapter=NVIDIA H100 80GB HBM3']);
    assert.equal(r.webgpu.adapter.software, false);
    assert.equal(r.webgpu.adapter.identityVerified, true);
    // What gpu.js's WebGPUContext.acquire does:
    const adapter = (await r.webgpu.navigatorGpu.requestAdapter())!;
    const device = (await adapter.requestDevice()) as unknown as { onuncapturederror: unknown };
    const handler = () => undefined;
    device.onuncapturederror = handler;
    assert.equal(device.onuncapturederror, handler);
    assert.equal(r.webgpu.stats().devices, 1);
  });

  it('refuses a software adapter unless the user forced webgpu', async () => {
    const { dawn } = fakeDawn([{ info: LLVMPIPE, fallback: true }]);
    const refused = await WebGpuDevices.open(null, { timeoutMs: 1000, allowSoftware: false, log, loadDawn: () => Promise.resolve(dawn) });
    assert.ok(!refused.ok);
    assert.match(refused.reason, /software one \(llvmpipe .*\), not a GPU; set topology\.gpu\.backend=webgpu/);
    const allowed = await WebGpuDevices.open(null, { timeoutMs: 1000, allowSoftware: true, log, loadDawn: () => Promise.resolve(dawn) });
    assert.ok(allowed.ok);
    assert.equal(allowed.webgpu.adapter.software, true);
  });

  it('fails a launch the device reported an error for (it would have resolved zeros), and counts lost devices', async () => {
    const { dawn, state } = fakeDawn([{ info: H100 }]);
    const r = await WebGpuDevices.open(null, { timeoutMs: 1000, allowSoftware: false, log, loadDawn: () => Promise.resolve(dawn) });
    assert.ok(r.ok);
    const w = r.webgpu;
    assert.equal(await w.guard(() => Promise.resolve('before any device')), 'before any device');
    await (await w.navigatorGpu.requestAdapter())!.requestDevice();
    assert.equal(await w.guard(() => Promise.resolve(42)), 42);
    state.failNext = 'Value 16777215 is invalid for WGPUBufferUsage.\n - While calling [Device].CreateBuffer';
    await assert.rejects(w.guard(() => Promise.resolve([0, 0])), /WebGPU error during the launch: Value 16777215 is invalid for WGPUBufferUsage\.$/);
    await assert.rejects(w.guard(() => Promise.reject(new Error('mapAsync failed'))), /mapAsync failed/);
    assert.deepEqual([w.stats().errors, w.stats().lastError], [1, 'Value 16777215 is invalid for WGPUBufferUsage.']);
    state.devices[0]!.destroy();
    await state.devices[0]!.lost;
    await new Promise((r) => setImmediate(r));
    assert.deepEqual([w.stats().lost, w.stats().lastLost], [1, 'destroyed: device was destroyed']);
    // A release at shutdown is not a loss.
    await (await w.navigatorGpu.requestAdapter())!.requestDevice();
    w.release();
    await new Promise((r) => setImmediate(r));
    assert.equal(state.devices[1]!.destroyed, true);
    assert.equal(w.stats().lost, 1);
  });

  it('says why when Dawn does not load', async () => {
    const r = await WebGpuDevices.open(null, { timeoutMs: 1000, allowSoftware: true, log, loadDawn: () => Promise.reject(new Error("/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found")) });
    assert.ok(!r.ok);
    assert.match(r.reason, /does not load \(.*GLIBC_2\.38.*scripts\/webgpu-runtime\.sh/);
  });

  it('asks the probe for a software adapter only when webgpu was forced, and for the assigned board unless it is declared', async () => {
    const asked: [unknown, boolean][] = [];
    const probes = {
      webgpu: (target: unknown, _ms: number, allowSoftware: boolean) => (asked.push([target, allowSoftware]), Promise.resolve({ ok: false as const, reason: 'no' })),
      headlessgl: () => Promise.resolve({ ok: false as const, reason: 'no' }),
    };
    await selectGpuBackend({ gpu: { gpuId: 'GPU-1', name: 'NVIDIA H100', source: 'nvidia-smi', pciBusId: '00000000:41:00.0' }, forced: 'auto', log, probes });
    await selectGpuBackend({ gpu: null, forced: 'webgpu', log, probes });
    await selectGpuBackend({ gpu: { gpuId: 'vgpu0', name: 'declared, no device', source: 'declared' }, forced: 'webgpu', log, probes });
    assert.deepEqual(asked, [
      [{ name: 'NVIDIA H100', gpuId: 'GPU-1', pciBusId: '00000000:41:00.0' }, false],
      [null, true],
      [null, true],
    ]);
  });
});

describe('GPU worker pinning (the assigned board, not the first of its model)', () => {
  it("turns nvidia-smi's PCI bus id into Mesa's DRI_PRIME tag", () => {
    assert.equal(driPrimeTag('00000000:41:00.0'), 'pci-0000_41_00_0');
    assert.equal(driPrimeTag('0000:C1:00.1'), 'pci-0000_c1_00_1');
    assert.equal(driPrimeTag('41:00.0'), 'pci-0000_41_00_0');
    assert.equal(driPrimeTag('not a bus id'), null);
  });

  it('narrows CUDA and Vulkan to the board, keeping what the operator set', () => {
    const gpu = { gpuId: 'GPU-2f1c', name: 'NVIDIA H100', index: 1, source: 'nvidia-smi' as const, pciBusId: '00000000:41:00.0' };
    assert.deepEqual(gpuPinningEnv(gpu), { CUDA_VISIBLE_DEVICES: 'GPU-2f1c', DRI_PRIME: 'pci-0000_41_00_0', MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' });
    assert.deepEqual(gpuPinningEnv({ gpuId: 'vgpu0', name: 'x', index: 0, source: 'declared' }), {});
    const env: NodeJS.ProcessEnv = { DRI_PRIME: 'pci-0000_01_00_0' };
    const logged: unknown[] = [];
    const log = { info: (o: unknown) => logged.push(o) } as unknown as Logger;
    installGpuRuntime({ gpu } as WorkerLaunch, log, env);
    assert.deepEqual(env, { DRI_PRIME: 'pci-0000_01_00_0', CUDA_VISIBLE_DEVICES: 'GPU-2f1c', MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' });
    assert.equal(logged.length, 1);
  });
});
