/**
 * The keys a supervisor reads, compiled once from the validated cluster
 * config: its id, host and ports, periods and timeouts as `…Ms`. The schema
 * already validated every value, so the casts only restore its types.
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
  const ports = config['supervisor.slots.ports'] as number[];
  const id = (config['supervisor.id'] as string | null) ?? `${hostname().replace(/[^A-Za-z0-9._-]/g, '_')}-${ports[0] ?? 0}`;
  return {
    id,
    host: (config['supervisor.host'] as string | null) ?? '127.0.0.1',
    ports: [...new Set(ports)],
    cpuCores: config['supervisor.cpu.cores'] as number | null,
    memoryMB: config['supervisor.memory.mb'] as number | null,
    heartbeatMs: secsToMs(config['supervisor.heartbeat.frequency.secs'] as number),
    monitorMs: secsToMs(config['supervisor.monitor.frequency.secs'] as number),
    workerStartTimeoutMs: secsToMs(config['supervisor.worker.start.timeout.secs'] as number),
    workerTimeoutMs: secsToMs(config['nimbus.task.timeout.secs'] as number),
    workerHeartbeatMs: secsToMs(config['worker.heartbeat.frequency.secs'] as number),
    collectorMs: secsToMs(config['supervisor.collector.period.secs'] as number),
    childopts: config['worker.childopts'] as string[],
    localDir: config['hstorm.local.dir'] as string,
    maxBundleInflatedBytes: Math.round((config['nimbus.bundle.max.inflated.mb'] as number) * 2 ** 20),
    nimbusHost: config['nimbus.host'] as string,
    nimbusPort: config['nimbus.http.port'] as number,
    logviewerPort: config['supervisor.logviewer.port'] as number | null,
    logviewerBindHost: configuredSlotBindHost(config),
  };
}
