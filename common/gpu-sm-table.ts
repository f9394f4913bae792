/**
 * What nvidia-smi and WebGPU do not tell us: SM count per GPU model (and the
 * compute capability, for drivers that reject `compute_cap`), and CUDA cores
 * per SM by compute capability (NVIDIA's `_ConvertSMVer2Cores` in
 * cuda-samples). Names are matched on word tokens, longest match first, so
 * "NVIDIA GeForce GTX 1080 Ti" is a 1080 Ti and "NVIDIA A10" is not an A100.
 * `supervisor.gpu.sm.counts` overrides the SM count for a name.
 */

export interface GpuModel {
  /** Lower-case word tokens that must appear consecutively in the name. */
  match: string;
  smCount: number;
  computeCapability: string;
}

/** Full-chip figures for the common board variant; operators override odd variants in config. */
export const GPU_MODELS: readonly GpuModel[] = [
  // Kepler / Maxwell
  { match: 'k40', smCount: 15, computeCapability: '3.5' },
  { match: 'k80', smCount: 13, computeCapability: '3.7' },
  { match: 'gtx 970', smCount: 13, computeCapability: '5.2' },
  { match: 'gtx 980', smCount: 16, computeCapability: '5.2' },
  { match: 'gtx 980 ti', smCount: 22, computeCapability: '5.2' },
  { match: 'gtx titan x', smCount: 24, computeCapability: '5.2' },
  { match: 'm40', smCount: 24, computeCapability: '5.2' },
  // Pascal
  { match: 'gtx 1060', smCount: 10, computeCapability: '6.1' },
  { match: 'gtx 1060 3gb', smCount: 9, computeCapability: '6.1' },
  { match: 'gtx 1070', smCount: 15, computeCapability: '6.1' },
  { match: 'gtx 1070 ti', smCount: 19, computeCapability: '6.1' },
  { match: 'gtx 1080', smCount: 20, computeCapability: '6.1' },
  { match: 'gtx 1080 ti', smCount: 28, computeCapability: '6.1' },
  { match: 'titan x pascal', smCount: 28, computeCapability: '6.1' },
  { match: 'titan xp', smCount: 30, computeCapability: '6.1' },
  { match: 'p4', smCount: 20, computeCapability: '6.1' },
  { match: 'p40', smCount: 30, computeCapability: '6.1' },
  { match: 'p100', smCount: 56, computeCapability: '6.0' },
  // Volta / Turing
  { match: 'v100', smCount: 80, computeCapability: '7.0' },
  { match: 'titan v', smCount: 80, computeCapability: '7.0' },
  { match: 't4', smCount: 40, computeCapability: '7.5' },
  { match: 'rtx 2070', smCount: 36, computeCapability: '7.5' },
  { match: 'rtx 2080', smCount: 46, computeCapability: '7.5' },
  { match: 'rtx 2080 super', smCount: 48, computeCapability: '7.5' },
  { match: 'rtx 2080 ti', smCount: 68, computeCapability: '7.5' },
  { match: 'titan rtx', smCount: 72, computeCapability: '7.5' },
  // Ampere
  { match: 'a100', smCount: 108, computeCapability: '8.0' },
  { match: 'a30', smCount: 56, computeCapability: '8.0' },
  { match: 'a2', smCount: 10, computeCapability: '8.6' },
  { match: 'a10', smCount: 72, computeCapability: '8.6' },
  { match: 'a10g', smCount: 80, computeCapability: '8.6' },
  { match: 'a16', smCount: 10, computeCapability: '8.6' },
  { match: 'a40', smCount: 84, computeCapability: '8.6' },
  { match: 'rtx a4000', smCount: 48, computeCapability: '8.6' },
  { match: 'rtx a5000', smCount: 64, computeCapability: '8.6' },
  { match: 'rtx a6000', smCount: 84, computeCapability: '8.6' },
  { match: 'rtx 3060', smCount: 28, computeCapability: '8.6' },
  { match: 'rtx 3070', smCount: 46, computeCapability: '8.6' },
  { match: 'rtx 3080', smCount: 68, computeCapability: '8.6' },
  { match: 'rtx 3080 ti', smCount: 80, computeCapability: '8.6' },
  { match: 'rtx 3090', smCount: 82, computeCapability: '8.6' },
  { match: 'rtx 3090 ti', smCount: 84, computeCapability: '8.6' },
  // Ada / Hopper
  { match: 'l4', smCount: 58, computeCapability: '8.9' },
  { match: 'l40', smCount: 142, computeCapability: '8.9' },
  { match: 'l40s', smCount: 142, computeCapability: '8.9' },
  { match: 'rtx 4070', smCount: 46, computeCapability: '8.9' },
  { match: 'rtx 4080', smCount: 76, computeCapability: '8.9' },
  { match: 'rtx 4090', smCount: 128, computeCapability: '8.9' },
  { match: 'rtx 6000 ada', smCount: 142, computeCapability: '8.9' },
  { match: 'h100', smCount: 132, computeCapability: '9.0' },
  { match: 'h100 pcie', smCount: 114, computeCapability: '9.0' },
  { match: 'h200', smCount: 132, computeCapability: '9.0' },
  { match: 'gh200', smCount: 132, computeCapability: '9.0' },
];

/** "NVIDIA GeForce GTX 1080 Ti" → "nvidia geforce gtx 1080 ti"; "(Pascal)" and "-SXM4-80GB" become tokens too. */
function tokens(name: string): string[] {
  return name.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

function containsRun(hay: readonly string[], needle: readonly string[]): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** The table entry for a GPU name (longest matching token run), or undefined. */
export function lookupGpuModel(name: string): GpuModel | undefined {
  const hay = tokens(name);
  let best: GpuModel | undefined;
  let bestLen = 0;
  for (const m of GPU_MODELS) {
    const needle = m.match.split(' ');
    if (needle.length > bestLen && containsRun(hay, needle)) {
      best = m;
      bestLen = needle.length;
    }
  }
  return best;
}

/**
 * SM count for a name: the config override (matched on the exact name, then on
 * tokens like the table), then the table; undefined when unknown.
 */
export function smCountFor(name: string, overrides: Readonly<Record<string, number>>): number | undefined {
  const exact = overrides[name];
  if (exact !== undefined) return exact;
  const hay = tokens(name);
  let best: number | undefined;
  let bestLen = 0;
  for (const [k, v] of Object.entries(overrides)) {
    const needle = tokens(k);
    if (needle.length > bestLen && containsRun(hay, needle)) {
      best = v;
      bestLen = needle.length;
    }
  }
  return best ?? lookupGpuModel(name)?.smCount;
}

/** The last entry is what cuda-samples falls back to for a newer architecture. */
const CORES_PER_SM: ReadonlyArray<readonly [major: number, minor: number | null, cores: number]> = [
  [3, null, 192],
  [5, null, 128],
  [6, 0, 64],
  [6, null, 128],
  [7, null, 64],
  [8, 0, 64],
  [8, null, 128],
  [9, null, 128],
];

export interface CoresPerSm {
  cores: number;
  /** False when the capability is not in the table and the nearest architecture's figure was used. */
  known: boolean;
}

/** CUDA cores per SM for a compute capability like "8.6". */
export function coresPerSmFor(computeCapability: string): CoresPerSm {
  const m = /^\s*(\d+)\.(\d+)\s*$/.exec(computeCapability);
  if (m) {
    const major = Number(m[1]);
    const minor = Number(m[2]);
    for (const [ma, mi, cores] of CORES_PER_SM) {
      if (ma === major && (mi === null || mi === minor)) return { cores, known: true };
    }
    // Like _ConvertSMVer2Cores: an architecture newer than the table takes the newest figure.
    if (major > 9) return { cores: 128, known: false };
    if (major < 3) return { cores: 32, known: false };
  }
  return { cores: 128, known: false };
}
