/**
 * The config keys the scheduler reads, with their types. A `Config` is
 * validated when it is built, but its value types reach TypeScript as
 * `unknown`; this view re-states them once and checks each value at runtime,
 * so a caller passing something unvalidated gets an error naming the key.
 */
import { SchedulingError } from '../../common/errors.js';
import type { SchedulerStrategy } from './types.js';

export interface SchedulerConfig {
  'nimbus.scheduler': SchedulerStrategy;
  'topology.workers': number;
  'topology.gpu.workers': number;
  'topology.acker.executors': number | null;
  'hstorm.scheduler.alpha': number;
  'hstorm.gpu.beta': number;
  'supervisor.gpu.slots': number;
  'supervisor.gpu.mps.max.clients': number | null;
}

type ConfigLike = Readonly<Record<string, unknown>>;

function num(c: ConfigLike, key: keyof SchedulerConfig): number {
  const v = c[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new SchedulingError(`config key "${key}" must be a number, got ${JSON.stringify(v)}`);
  }
  return v;
}

function numOrNull(c: ConfigLike, key: keyof SchedulerConfig): number | null {
  return c[key] === null || c[key] === undefined ? null : num(c, key);
}

/** Reads the scheduler's keys from a validated config (e.g. `buildConfig`'s result). */
export function schedulerConfig(config: SchedulerConfig | ConfigLike): SchedulerConfig {
  const c = config as ConfigLike;
  const strategy = c['nimbus.scheduler'];
  if (strategy !== 'even' && strategy !== 'hetero') {
    throw new SchedulingError(`config key "nimbus.scheduler" must be "even" or "hetero", got ${JSON.stringify(strategy)}`);
  }
  return {
    'nimbus.scheduler': strategy,
    'topology.workers': num(c, 'topology.workers'),
    'topology.gpu.workers': num(c, 'topology.gpu.workers'),
    'topology.acker.executors': numOrNull(c, 'topology.acker.executors'),
    'hstorm.scheduler.alpha': num(c, 'hstorm.scheduler.alpha'),
    'hstorm.gpu.beta': num(c, 'hstorm.gpu.beta'),
    'supervisor.gpu.slots': num(c, 'supervisor.gpu.slots'),
    'supervisor.gpu.mps.max.clients': numOrNull(c, 'supervisor.gpu.mps.max.clients'),
  };
}
