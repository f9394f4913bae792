/**
 * The config keys the scheduler reads, with their types. A `Config` is
 * validated when it is built, but its value types reach TypeScript as
 * `unknown`; this view re-states them once and checks each value at runtime,
 * so a caller passing something unvalidated gets an error naming the key.
 */
import { SchedulingError } from '../../common/errors.js';
import type { FairnessOptions, SchedulerStrategy } from './types.js';

export interface SchedulerConfig {
  'nimbus.scheduler': SchedulerStrategy;
  'nimbus.scheduler.fairness': 'none' | 'hdrf';
  'nimbus.scheduler.reservation.timeout.secs': number;
  'nimbus.scheduler.gpu.fallback.cpu': boolean;
  'topology.workers': number;
  'topology.gpu.workers': number;
  'topology.acker.executors': number | null;
  'topology.component.cpu.pcore.percent': number;
  'topology.component.resources.onheap.memory.mb': number;
  'topology.gpu.memory.mb': number;
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

function oneOf<T extends string>(c: ConfigLike, key: keyof SchedulerConfig, allowed: readonly T[]): T {
  const v = c[key];
  if (!allowed.includes(v as T)) {
    throw new SchedulingError(`config key "${key}" must be ${allowed.map((a) => `"${a}"`).join(' or ')}, got ${JSON.stringify(v)}`);
  }
  return v as T;
}

/** Reads the scheduler's keys from a validated config (e.g. `buildConfig`'s result). */
export function schedulerConfig(config: SchedulerConfig | ConfigLike): SchedulerConfig {
  const c = config as ConfigLike;
  const fallback = c['nimbus.scheduler.gpu.fallback.cpu'];
  if (typeof fallback !== 'boolean') {
    throw new SchedulingError(`config key "nimbus.scheduler.gpu.fallback.cpu" must be true or false, got ${JSON.stringify(fallback)}`);
  }
  return {
    'nimbus.scheduler': oneOf(c, 'nimbus.scheduler', ['even', 'hetero', 'hdrf'] as const),
    'nimbus.scheduler.fairness': oneOf(c, 'nimbus.scheduler.fairness', ['none', 'hdrf'] as const),
    'nimbus.scheduler.reservation.timeout.secs': num(c, 'nimbus.scheduler.reservation.timeout.secs'),
    'nimbus.scheduler.gpu.fallback.cpu': fallback,
    'topology.workers': num(c, 'topology.workers'),
    'topology.gpu.workers': num(c, 'topology.gpu.workers'),
    'topology.acker.executors': numOrNull(c, 'topology.acker.executors'),
    'topology.component.cpu.pcore.percent': num(c, 'topology.component.cpu.pcore.percent'),
    'topology.component.resources.onheap.memory.mb': num(c, 'topology.component.resources.onheap.memory.mb'),
    'topology.gpu.memory.mb': num(c, 'topology.gpu.memory.mb'),
    'hstorm.scheduler.alpha': num(c, 'hstorm.scheduler.alpha'),
    'hstorm.gpu.beta': num(c, 'hstorm.gpu.beta'),
    'supervisor.gpu.slots': num(c, 'supervisor.gpu.slots'),
    'supervisor.gpu.mps.max.clients': numOrNull(c, 'supervisor.gpu.mps.max.clients'),
  };
}

/** HDRF options when `nimbus.scheduler` is hdrf or `nimbus.scheduler.fairness` is hdrf; null otherwise. */
export function fairnessOf(cfg: Pick<SchedulerConfig, 'nimbus.scheduler' | 'nimbus.scheduler.fairness' | 'nimbus.scheduler.reservation.timeout.secs'>): FairnessOptions | null {
  if (cfg['nimbus.scheduler'] !== 'hdrf' && cfg['nimbus.scheduler.fairness'] !== 'hdrf') return null;
  return { mode: 'hdrf', reservationTimeoutMs: Math.round(cfg['nimbus.scheduler.reservation.timeout.secs'] * 1000) };
}
