/**
 * The keys a supervisor reads, compiled once from the validated cluster
 * config: its id, host and ports, periods and timeouts as `…Ms`.
 */
import { hostname } from 'node:os';
import { secsToMs, type Config } from '../common/config/index.js';
import { configuredSlotBindHost } from '../common/slot-bind-host.js';

export interface SupervisorSettings {
  /** `supervisor.id`, or `<host name>-<first port>` (unique per machine as ports are). */
  id: string;
  /** What peers reach this node's workers at (`supervisor.host`, default 127.0.0.1). */
  host: string;
  ports: number[];
  /** Cores and memory offered to HDRF (`supervisor.cpu.cores`, `supervisor.memory.mb`); null: what the machine has. */
  cpuCores: number | null;
  memoryMB: number | null;
  heartbeatMs: number;
  monitorMs: number;
  workerStartTimeoutMs: number;
  /** A running worker whose own heartbeat is older than this is restarted (nimbus uses the same bound). */
  workerTimeoutMs: number;
  workerHeartbeatMs: number;
  /** Node collector period; 0: off. */
  collectorMs: number;
  childopts: string[];
  localDir: string;
  /** `nimbus.bundle.max.inflated.mb` in bytes: a downloaded bundle inflating to more is refused. */
  maxBundleInflatedBytes: number;
  nimbusHost: string;
  nimbusPort: number;
  /** `supervisor.logviewer.port` (0: any free port); null: no log server. */
  logviewerPort: number | null;
  /** Where the log server listens: the slots' bind address. */
  logviewerBindHost: string;
}

export function supervisorSettings(config: Config): SupervisorSettings {
  const ports = config['supervisor.slots.ports'];
  const id = config['supervisor.id'] ?? `${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${ports[0] ?? 0}`;
  return {
    id,
    host: config['supervisor.host'] ?? '127.0.0.1',
    ports: [...new Set(ports)],
    cpuCores: config['supervisor.cpu.cores'],
    memoryMB: config['supervisor.memory.mb'],
    heartbeatMs: secsToMs(config['supervisor.heartbeat.frequency.secs']),
    monitorMs: secsToMs(config['supervisor.monitor.frequency.secs']),
    workerStartTimeoutMs: secsToMs(config['supervisor.worker.start.timeout.secs']),
    workerTimeoutMs: secsToMs(config['nimbus.task.timeout.secs']),
    workerHeartbeatMs: secsToMs(config['worker.heartbeat.frequency.secs']),
    collectorMs: secsToMs(config['supervisor.collector.period.secs']),
    childopts: config['worker.childopts'],
    localDir: config['hstorm.local.dir'],
    maxBundleInflatedBytes: Math.round(config['nimbus.bundle.max.inflated.mb'] * 2 ** 20),
    nimbusHost: config['nimbus.host'],
    nimbusPort: config['nimbus.http.port'],
    logviewerPort: config['supervisor.logviewer.port'],
    logviewerBindHost: configuredSlotBindHost(config),
  };
}
