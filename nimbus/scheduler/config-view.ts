/**
 * The config keys the scheduler reads, typed by their schemas
 * (common/config/schema.ts): a validated `Config` is one, and so is any
 * object with just these keys (a dry run's, a benchmark's).
 */
import type { Config } from '../../common/config/index.js';
import type { FairnessOptions } from './types.js';

export type SchedulerConfigKey =
  | 'nimbus.scheduler'
  | 'nimbus.scheduler.fairness'
  | 'nimbus.scheduler.reservation.timeout.secs'
  | 'nimbus.scheduler.gpu.fallback.cpu'
  | 'topology.workers'
  | 'topology.gpu.workers'
  | 'topology.acker.executors'
  | 'topology.component.cpu.pcore.percent'
  | 'topology.component.resources.onheap.memory.mb'
  | 'topology.gpu.memory.mb'
  | 'hstorm.scheduler.alpha'
  | 'hstorm.gpu.beta'
  | 'supervisor.gpu.slots'
  | 'supervisor.gpu.mps.max.clients';

export type SchedulerConfig = Pick<Config, SchedulerConfigKey>;

/** HDRF options when `nimbus.scheduler` is hdrf or `nimbus.scheduler.fairness` is hdrf; null otherwise. */
export function fairnessOf(cfg: Pick<SchedulerConfig, 'nimbus.scheduler' | 'nimbus.scheduler.fairness' | 'nimbus.scheduler.reservation.timeout.secs'>): FairnessOptions | null {
  if (cfg['nimbus.scheduler'] !== 'hdrf' && cfg['nimbus.scheduler.fairness'] !== 'hdrf') return null;
  return { mode: 'hdrf', reservationTimeoutMs: Math.round(cfg['nimbus.scheduler.reservation.timeout.secs'] * 1000) };
}
