/**
 * Config for client commands: `-c` overrides split by scope — the cluster keys
 * a client reads (nimbus.host, nimbus.http.port, the nimbus secret) configure
 * the client, topology and user keys travel with a submitted topology, and any
 * other cluster key is refused: the daemons read it from their own
 * hstorm.yaml, so given to a client it would change nothing.
 */
import {
  buildConfig,
  COMMAND_LINE,
  CONFIG_KEYS,
  isKnownKey,
  parseOverrides,
  readConfigFile,
  validateEntries,
  type Config,
  type RawConfig,
} from '../../common/config/index.js';
import { ConfigError } from '../../common/errors.js';
import type { ConfigFlags } from './config-options.js';

/**
 * Splits `-c` overrides by scope, checking each on the way: a key under one of
 * hstorm's prefixes that hstorm does not know is a typo (`nimbus.hots`) and is
 * refused with a did-you-mean, whatever the command — not silently left unused.
 */
export function splitOverrides(conf: readonly string[]): { cluster: RawConfig; topology: RawConfig } {
  const cluster: RawConfig = {};
  const topology: RawConfig = {};
  const given = parseOverrides(conf);
  // Unknown hstorm-namespace keys and Storm's key names fail here, named as -c (user keys pass on to the topology).
  validateEntries(given, { allowUserKeys: true, where: COMMAND_LINE });
  for (const [k, v] of Object.entries(given)) {
    if (isKnownKey(k) && CONFIG_KEYS[k].scope === 'cluster') cluster[k] = v;
    else topology[k] = v;
  }
  return {
    cluster: validateEntries(cluster, { allowUserKeys: false, where: COMMAND_LINE }),
    topology: validateEntries(topology, { allowUserKeys: true, where: COMMAND_LINE }),
  };
}

/** The cluster keys a client command reads: where nimbus is and the secret it wants. */
export const CLIENT_KEYS: readonly string[] = ['nimbus.host', 'nimbus.http.port', 'nimbus.auth.secret', 'nimbus.auth.secret.file'];

/**
 * A `-c worker.childopts=…` on `hstorm submit` used to be taken as client config and dropped: neither the client
 * reads it nor may a topology set it. Refused, naming the key's scope and where it belongs.
 */
function refuseDaemonKeys(cluster: RawConfig): void {
  for (const [k, v] of Object.entries(cluster)) {
    if (CLIENT_KEYS.includes(k)) continue;
    throw new ConfigError(
      `config key "${k}" in ${COMMAND_LINE} is a cluster key: the daemons (nimbus, supervisors) read it from their own hstorm.yaml, a topology cannot set it, ` +
        `and this command does not use it; set it in the daemons' config. Cluster keys a client command reads: ${CLIENT_KEYS.join(', ')}`,
      k,
      v,
    );
  }
}

/** Cluster config of a client command; topology keys given with -c are left to the caller. */
export function clientConfig(flags: ConfigFlags): { config: Config; topology: RawConfig } {
  const { cluster, topology } = splitOverrides(flags.conf);
  refuseDaemonKeys(cluster);
  const file = readConfigFile(flags.config ?? 'hstorm.yaml', flags.config !== undefined);
  const fileCluster: RawConfig = {};
  for (const [k, v] of Object.entries(file)) if (!isKnownKey(k) || CONFIG_KEYS[k].scope === 'cluster') fileCluster[k] = v;
  const fromFile = validateEntries(fileCluster, { allowUserKeys: false, where: flags.config ?? 'hstorm.yaml' });
  return { config: buildConfig([fromFile, cluster], { allowUserKeys: false, where: COMMAND_LINE }), topology };
}
