/**
 * The cluster keys nimbus reads, compiled once from the validated config
 * (durations as `…Ms`); each value's type comes from its schema.
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
  /** `nimbus.shutdown.timeout.secs`: the longest a stop after SIGTERM may take. */
  shutdownTimeoutMs: number;
  /** How long a vanished supervisor node is waited for before its workers move (nimbus/supervisor-grace.ts): one supervisor heartbeat period. */
  supervisorGraceMs: number;
  localDir: string;
  /** `nimbus.bundle.max.inflated.mb` in bytes: an upload inflating to more is refused (413). */
  maxBundleInflatedBytes: number;
  host: string;
  httpPort: number;
  /** `hstorm.messaging.curve`: nimbus keeps a CURVE key pair per topology for its workers. */
  curve: boolean;
  /** `nimbus.auth.reads`: with a secret, reads need it too (http-auth.ts). */
  authReads: boolean;
  /** Names state-changing requests may be addressed to (http-cross-site.ts): nimbus.host and nimbus.http.allowed.hosts. */
  allowedHosts: string[];
}

export function nimbusSettings(config: Config): NimbusSettings {
  return {
    scheduler: config['nimbus.scheduler'],
    fairness: fairnessOf(config),
    gpuFallbackToCpu: config['nimbus.scheduler.gpu.fallback.cpu'],
    taskTimeoutMs: secsToMs(config['nimbus.task.timeout.secs']),
    // Storm's nimbus.task.launch.secs: nimbus gives up on a never-started worker only after its supervisor had a chance to restart it.
    workerStartTimeoutMs: secsToMs(config['nimbus.task.launch.secs']),
    monitorMs: secsToMs(config['nimbus.monitor.freq.secs']),
    shutdownTimeoutMs: secsToMs(config['nimbus.shutdown.timeout.secs']),
    supervisorGraceMs: secsToMs(config['supervisor.heartbeat.frequency.secs']),
    localDir: config['hstorm.local.dir'],
    maxBundleInflatedBytes: Math.round(config['nimbus.bundle.max.inflated.mb'] * 2 ** 20),
    host: config['nimbus.host'],
    httpPort: config['nimbus.http.port'],
    curve: config['hstorm.messaging.curve'],
    authReads: config['nimbus.auth.reads'],
    allowedHosts: [config['nimbus.host'], ...config['nimbus.http.allowed.hosts']],
  };
}
