/**
 * What a supervisor hands its workers for their links and nothing more: the
 * topology's CURVE keys (from nimbus, hstorm.messaging.curve) and the cluster
 * config without any secret but the ZooKeeper credentials. Workers run
 * submitted code, so what they hold, that code holds: they need the
 * ZooKeeper credentials (their assignment, metrics and signals live in
 * ZooKeeper) and never nimbus's API secret.
 */
import type { ClusterState } from '../common/cluster-state.js';
import type { Config, ConfigRecord } from '../common/config/index.js';
import type { Logger } from '../common/logger.js';
import type { CurveKeys } from '../common/security/curve-keys.js';
import { isSecretOrItsFile } from '../common/security/redaction.js';
import { zookeeperAuthPayload } from '../common/security/secrets.js';
import { CurveKeyFetcher } from './curve-key-fetcher.js';
import type { SupervisorSettings } from './supervisor-config.js';

/**
 * Every secret-bearing key and the file key of each goes (common/security/redaction.ts); the ZooKeeper credentials
 * come back inline, read from their file here: a worker running as another user (supervisor.worker.user) could not
 * read a 0600 file.
 */
export function workerClusterConfig(config: Config): ConfigRecord {
  const out: ConfigRecord = {};
  for (const [k, v] of Object.entries(config)) {
    if (isSecretOrItsFile(k)) continue;
    out[k] = v;
  }
  out['hstorm.zookeeper.auth.payload'] = zookeeperAuthPayload(config);
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
