/**
 * How a supervisor starts a worker process: `node dist/worker/main.js` with
 * these environment variables (and, in local mode, an IPC channel carrying the
 * cluster-state proxy).
 */
import type { GpuBinding } from './assignment.js';
import type { ConfigRecord } from './config/config.js';
import type { CurveKeys } from './security/curve-keys.js';

export interface WorkerLaunch {
  topologyId: string;
  supervisorId: string;
  host: string;
  port: number;
  /** Absolute path of the topology module (ESM) to load. */
  modulePath: string;
  /** `ipc`: the parent process serves the store over IPC; `zookeeper`: connect with `clusterConfig`. */
  state: 'ipc' | 'zookeeper';
  /** Cluster config (validated) — ZooKeeper address, root, timeouts. */
  clusterConfig: ConfigRecord;
  gpu: GpuBinding | null;
  /** The topology's CURVE key pair (hstorm.messaging.curve); absent or null: plain links. */
  curve?: CurveKeys | null;
  /** Where the worker writes its local heartbeat for its supervisor (common/local-heartbeat.ts); absent: nowhere. */
  localHeartbeatFile?: string;
}

export const WORKER_ENV = 'HSTORM_WORKER_LAUNCH';

export function encodeWorkerLaunch(l: WorkerLaunch): Record<string, string> {
  return { [WORKER_ENV]: JSON.stringify(l) };
}

export function decodeWorkerLaunch(env: NodeJS.ProcessEnv): WorkerLaunch {
  const raw = env[WORKER_ENV];
  if (!raw) throw new Error(`${WORKER_ENV} is not set: workers are started by a supervisor`);
  return JSON.parse(raw) as WorkerLaunch;
}
