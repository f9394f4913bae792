/**
 * How a worker's links are protected: where its slot socket listens
 * (common/slot-bind-host.ts) and, with hstorm.messaging.curve, the topology's CURVE keys
 * (curve.ts). Built once at worker start from the launch.
 */
import type { CurveKeys } from '../../common/security/curve-keys.js';
import type { ConfigRecord } from '../../common/config/index.js';
import { configuredSlotBindHost, resolveSlotBindHost } from '../../common/slot-bind-host.js';

export interface LinkSecurity {
  /** An IP literal, or `*` for every interface. */
  bindHost: string;
  /** null: plain TCP. */
  curve: CurveKeys | null;
}

export async function linkSecurityOf(clusterConfig: ConfigRecord, curve: CurveKeys | null | undefined): Promise<LinkSecurity> {
  return { bindHost: await resolveSlotBindHost(configuredSlotBindHost(clusterConfig)), curve: curve ?? null };
}
