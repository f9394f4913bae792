/**
 * The state store stateful bolts checkpoint to (docs/state.md): the interface,
 * its `memory` and `redis` providers, and the settings compiled from
 * `topology.state.provider` and `topology.state.provider.config`. The worker
 * opens one per process; the SDK sees only the interface.
 */
import type { Config } from '../config/config.js';
import { ConfigError } from '../errors.js';
import { MemoryStateStore } from './memory-state-store.js';
import { RedisStateStore, type RedisStateStoreOptions } from './redis-state-store.js';
import type { StateStore, StateStoreSettings } from './state-store.js';

export type { StateStore, StateStoreSettings, StateEntry, StateTxids, StateProviderName } from './state-store.js';
export { TOMBSTONE, quoteBytes } from './state-store.js';
export { MemoryStateStore } from './memory-state-store.js';
export { RedisStateStore } from './redis-state-store.js';

/** Storm's default Redis (localhost:6379) and a prefix that keeps hstorm's keys apart from anything else in it. */
export const DEFAULT_STATE_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_STATE_KEY_PREFIX = 'hstorm:state:';
const DEFAULT_TIMEOUT_MS = 5000;

/** The two state keys of a topology config, compiled once (the config was validated where it was built). */
export function stateStoreSettings(config: Config): StateStoreSettings {
  const c = config['topology.state.provider.config'];
  return {
    provider: config['topology.state.provider'],
    url: c.url ?? DEFAULT_STATE_URL,
    urlEnv: c.urlEnv ?? null,
    keyPrefix: c.keyPrefix ?? DEFAULT_STATE_KEY_PREFIX,
    connectTimeoutMs: c.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    commandTimeoutMs: c.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
}

export function openStateStore(settings: StateStoreSettings, opts: RedisStateStoreOptions = {}, env: NodeJS.ProcessEnv = process.env): StateStore {
  return settings.provider === 'redis' ? new RedisStateStore({ ...settings, url: stateUrl(settings, env) }, opts) : new MemoryStateStore();
}

const KEY = 'topology.state.provider.config';

/** The Redis URL: from the variable `urlEnv` names when set (its value is never put in a message), else `url`. */
export function stateUrl(settings: StateStoreSettings, env: NodeJS.ProcessEnv): string {
  const name = settings.urlEnv;
  if (name === null) return settings.url;
  const url = env[name];
  if (!url) throw new ConfigError(`${KEY}: urlEnv names the environment variable ${name}, which is not set where this worker runs (workers inherit their supervisor's environment)`, KEY);
  if (!/^rediss?:\/\/\S+$/.test(url)) throw new ConfigError(`${KEY}: the environment variable ${name} (urlEnv) does not hold a redis:// or rediss:// URL`, KEY);
  return url;
}
