/**
 * Config for client commands: `-c` overrides split by scope — cluster keys
 * (nimbus.host, nimbus.http.port…) configure the client, the rest (topology
 * and user keys) travel with a submitted topology.
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

/** Cluster config of a client command; topology keys given with -c are left to the caller. */
export function clientConfig(flags: ConfigFlags): { config: Config; topology: RawConfig } {
  const { cluster, topology } = splitOverrides(flags.conf);
  const file = readConfigFile(flags.config ?? 'hstorm.yaml', flags.config !== undefined);
  const fileCluster: RawConfig = {};
  for (const [k, v] of Object.entries(file)) if (!isKnownKey(k) || CONFIG_KEYS[k].scope === 'cluster') fileCluster[k] = v;
  const fromFile = validateEntries(fileCluster, { allowUserKeys: false, where: flags.config ?? 'hstorm.yaml' });
  return { config: buildConfig([fromFile, cluster], { allowUserKeys: false, where: COMMAND_LINE }), topology };
}
