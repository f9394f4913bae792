/**
 * What a supervisor hands its workers for their links and nothing more: the
 * topology's CURVE keys (from nimbus, hstorm.messaging.curve) and the cluster
 * config without nimbus's API secret, which workers never need (they run
 * submitted code; the ZooKeeper credentials they do need stay in).
 */
import type { ClusterState } from '../common/cluster-state.js';
import type { Config, ConfigRecord } from '../common/config/index.js';
import type { Logger } from '../common/logger.js';
import type { CurveKeys } from '../common/security/curve-keys.js';
import { zookeeperAuthPayload } from '../common/security/secrets.js';
import { CurveKeyFetcher } from './curve-key-fetcher.js';
import type { SupervisorSettings } from './supervisor-config.js';

const WORKER_HIDDEN_KEYS = ['nimbus.auth.secret', 'nimbus.auth.secret.file'];

/**
 * The ZooKeeper credentials go inline, read from their file here: a worker
 * running as another user (supervisor.worker.user) could not read a 0600 file.
 */
export function workerClusterConfig(config: Config): ConfigRecord {
  const out: ConfigRecord = { ...config };
  for (const k of WORKER_HIDDEN_KEYS) delete out[k];
  const zk = zookeeperAuthPayload(config);
  delete out['hstorm.zookeeper.auth.payload.file'];
  out['hstorm.zookeeper.auth.payload'] = zk;
  return out;
}

/** null when CURVE is off; else the given source, or nimbus's API. */
export function curveKeySource(
  options: { config: Config; curveKeys?: (topologyId: string) => Promise<CurveKeys> },
  settings: SupervisorSettings,
  state: ClusterState,
  fetchImpl: typeof fetch,
  log: Logger,
): ((topologyId: string) => Promise<CurveKeys>) | null {
  if (options.config['hstorm.messaging.curve'] !== true) return null;
  if (options.curveKeys) return options.curveKeys;
  const fetcher = new CurveKeyFetcher({ state, nimbusHost: settings.nimbusHost, nimbusPort: settings.nimbusPort, fetchImpl, log });
  return (id) => fetcher.keysFor(id);
}
