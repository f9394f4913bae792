/**
 * scripts/vulkan-icds.sh, which writes the ICD part of machine.txt on a GPU
 * machine: software Vulkan drivers (lavapipe, SwiftShader) are labelled as
 * CPUs, never GPUs; the NVIDIA ICD is found where the device image keeps it
 * (/usr/local/nvidia/share/vulkan/icd.d); an empty image says so. ICD files
 * as Debian's mesa-vulkan-drivers, SwiftShader and NVIDIA's driver ship them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'scripts', 'vulkan-icds.sh');

function icd(dir: string, name: string, libraryPath: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ file_format_version: '1.0.0', ICD: { library_path: libraryPath, api_version: '1.3.0' } }, null, 4));
  return file;
}

function list(dirs: string[]): string {
  const r = spawnSync('bash', [script], { encoding: 'utf8', env: { ...process.env, HSTORM_VULKAN_ICD_DIRS: dirs.join(':') } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

describe('scripts/vulkan-icds.sh', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'hstorm-icds-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('labels software drivers as CPUs and names the NVIDIA ICD', () => {
    const mesa = join(root, 'usr/share/vulkan/icd.d');
    const nvidiaDir = join(root, 'usr/local/nvidia/share/vulkan/icd.d');
    const lvp = icd(mesa, 'lvp_icd.x86_64.json', '/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so');
    const radeon = icd(mesa, 'radeon_icd.x86_64.json', '/usr/lib/x86_64-linux-gnu/libvulkan_radeon.so');
    // SwiftShader's ICD file name does not say what it is; its library does.
    const swift = icd(mesa, 'vk_icd.json', './libvk_swiftshader.so');
    const nvidia = icd(nvidiaDir, 'nvidia_icd.json', 'libGLX_nvidia.so.0');
    const out = list([mesa, join(root, 'etc/vulkan/icd.d'), nvidiaDir]);
    assert.deepEqual(out.trim().split('\n'), [
      '## Vulkan ICDs',
      `${lvp} — software (Mesa lavapipe): a CPU, not a GPU`,
      `${radeon} — Mesa hardware driver: answers only where its board is present`,
      `${swift} — software (SwiftShader): a CPU, not a GPU`,
      `${nvidia} — NVIDIA`,
      `## NVIDIA ICD: ${nvidia}`,
    ]);
  });

  it('says when there is no ICD at all, and no NVIDIA one', () => {
    const out = list([join(root, 'none')]);
    assert.equal(out, '## Vulkan ICDs\n## NVIDIA ICD: none (WebGPU cannot reach an NVIDIA GPU: the benchmarks run on CPU backends and any software adapter, labelled)\n');
  });
});
