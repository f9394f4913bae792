/**
 * GPU quantization (H-Storm §2.1.1, DESIGN §4): how many GPU workers may share
 * one GPU. P comes from the GPU's own `slots` or `supervisor.gpu.slots`, then
 * - P ≤ 1 below compute capability 3.5 (no MPS: one process per GPU);
 * - P ≤ the MPS client limit: 16 before Volta (cc < 7.0), 48 from Volta on,
 *   or `supervisor.gpu.mps.max.clients`.
 * Pure, and shared by discovery and the scheduler dry run so both count alike.
 */

export interface ComputeCapability {
  major: number;
  minor: number;
}

/** "8.6" → { major: 8, minor: 6 }; null when not "N.M". */
export function parseComputeCapability(cc: string): ComputeCapability | null {
  const m = /^\s*(\d+)\.(\d+)\s*$/.exec(cc);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : null;
}

function below(cc: ComputeCapability, major: number, minor: number): boolean {
  return cc.major < major || (cc.major === major && cc.minor < minor);
}

/**
 * MPS clients one GPU accepts: the override, else 16 before Volta and 48 from
 * Volta (7.0) on; an unknown capability gets the smaller, safe figure.
 */
export function mpsClientLimit(computeCapability: string, override: number | null): number {
  if (override !== null) return override;
  const cc = parseComputeCapability(computeCapability);
  return !cc || below(cc, 7, 0) ? 16 : 48;
}

export interface SlotLimit {
  /** P after the rules. */
  slots: number;
  /** Why P is below what was asked, or null when it is not. */
  limitedBy: string | null;
}

export function gpuSlotLimit(
  computeCapability: string,
  requested: number,
  mpsMaxClients: number | null,
): SlotLimit {
  const asked = Math.max(0, Math.floor(requested));
  const cc = parseComputeCapability(computeCapability);
  if (cc && below(cc, 3, 5) && asked > 1) {
    return { slots: 1, limitedBy: `compute capability ${computeCapability} < 3.5 has no MPS: one slot` };
  }
  const limit = mpsClientLimit(computeCapability, mpsMaxClients);
  if (asked > limit) {
    const src =
      mpsMaxClients !== null
        ? 'supervisor.gpu.mps.max.clients'
        : !cc
          ? 'MPS limit for an unknown compute capability'
          : below(cc, 7, 0)
            ? 'pre-Volta MPS limit'
            : 'Volta+ MPS limit';
    return { slots: limit, limitedBy: `${asked} slots asked, ${src} is ${limit}` };
  }
  return { slots: asked, limitedBy: null };
}
