/**
 * The cluster keys nimbus reads, compiled once from the validated config
 * (durations as `…Ms`). The config was validated against the schema on load,
 * so the casts here only restore the types the schema guarantees.
 */
import { secsToMs, type Config } from '../common/config/index.js';
import { fairnessOf } from './scheduler/config-view.js';
import type { FairnessOptions, SchedulerStrategy } from './scheduler/types.js';

export interface NimbusSettings {
  scheduler: SchedulerStrategy;
  /** HDRF between topologies (nimbus.scheduler=hdrf or nimbus.scheduler.fairness=hdrf), else null. */
  fairness: FairnessOptions | null;
  gpuFallbackToCpu: boolean;
  taskTimeoutMs: number;
  workerStartTimeoutMs: number;
  monitorMs: number;
  /** How long a vanished supervisor node is waited for before its workers move (nimbus/supervisor-grace.ts): one supervisor heartbeat period. */
  supervisorGraceMs: number;
  localDir: string;
  /** `nimbus.bundle.max.inflated.mb` in bytes: an upload inflating to more is refused (413). */
  maxBundleInflatedBytes: number;
  host: string;
  httpPort: number;
}

export function nimbusSettings(config: Config): NimbusSettings {
  const scheduler = config['nimbus.scheduler'] as SchedulerStrategy;
  return {
    scheduler,
    fairness: fairnessOf({
      'nimbus.scheduler': scheduler,
      'nimbus.scheduler.fairness': config['nimbus.scheduler.fairness'] as 'none' | 'hdrf',
      'nimbus.scheduler.reservation.timeout.secs': config['nimbus.scheduler.reservation.timeout.secs'] as number,
    }),
    gpuFallbackToCpu: config['nimbus.scheduler.gpu.fallback.cpu'] as boolean,
    taskTimeoutMs: secsToMs(config['nimbus.task.timeout.secs'] as number),
    // Storm's nimbus.task.launch.secs: nimbus gives up on a never-started worker only after its supervisor had a chance to restart it.
    workerStartTimeoutMs: secsToMs(config['nimbus.task.launch.secs'] as number),
    monitorMs: secsToMs(config['nimbus.monitor.freq.secs'] as number),
    supervisorGraceMs: secsToMs(config['supervisor.heartbeat.frequency.secs'] as number),
    localDir: config['hstorm.local.dir'] as string,
    maxBundleInflatedBytes: Math.round((config['nimbus.bundle.max.inflated.mb'] as number) * 2 ** 20),
    host: config['nimbus.host'] as string,
    httpPort: config['nimbus.http.port'] as number,
  };
}
