/**
 * The supervisor's node collector (seed 003's information collector, one per
 * node): every `supervisor.collector.period.secs` it samples the node's CPU
 * use, memory, each GPU's utilisation and memory, and the RSS and CPU of
 * every worker it runs. The latest round travels in the supervisor's
 * heartbeat znode, where nimbus (REST API, web UI, /metrics) reads it.
 *
 * Only nvidia-smi GPUs have utilisation and memory figures: a WebGPU adapter
 * exposes neither, and a GPU declared in config has no device to ask; both
 * report null with the reason. Every source is injectable for tests.
 */
import { cpus, freemem, loadavg, totalmem, type CpuInfo } from 'node:os';
import pidusage from 'pidusage';
import type { GpuInfo, NodeGpuStats, NodeStats, NodeWorkerStats } from '../common/resources.js';
import { queryGpuUsage, type GpuUsageQuery } from './nvidia-smi-usage.js';

export interface ProcessUsage {
  /** CPU time per wall time since the previous sample of this pid (1 = one core). */
  cpu: number;
  rssBytes: number;
}

export interface NodeSources {
  cpus: () => Pick<CpuInfo, 'times'>[];
  memory: () => { totalBytes: number; availableBytes: number };
  load1: () => number;
  gpuUsage: () => Promise<GpuUsageQuery>;
  /** Usage of each pid that still exists; a gone pid is left out. */
  processes: (pids: number[]) => Promise<Map<number, ProcessUsage>>;
  now: () => number;
}

export interface CollectedWorker {
  port: number;
  topologyId: string;
  pid: number;
}

export const WEBGPU_NO_USAGE = 'a WebGPU adapter exposes no utilisation or memory use';
export const DECLARED_NO_USAGE = 'declared in config: no device to ask';

export const osSources: NodeSources = {
  cpus: () => cpus(),
  memory: () => ({ totalBytes: totalmem(), availableBytes: freemem() }),
  load1: () => loadavg()[0] ?? 0,
  gpuUsage: () => queryGpuUsage(),
  processes: async (pids) => {
    const out = new Map<number, ProcessUsage>();
    if (pids.length === 0) return out;
    // One pid at a time: pidusage rejects the whole batch when one pid has just exited.
    for (const pid of pids) {
      try {
        const s = await pidusage(pid);
        out.set(pid, { cpu: s.cpu / 100, rssBytes: s.memory });
      } catch {
        // exited between the supervisor's look and ours
      }
    }
    return out;
  },
  now: () => Date.now(),
};

type CpuTimes = { busy: number; total: number };

function cpuTimes(list: Pick<CpuInfo, 'times'>[]): CpuTimes {
  let busy = 0;
  let total = 0;
  for (const c of list) {
    const t = c.times;
    const b = t.user + t.nice + t.sys + t.irq;
    busy += b;
    total += b + t.idle;
  }
  return { busy, total };
}

const MB = 2 ** 20;

export class NodeCollector {
  private prevCpu: CpuTimes | null = null;
  private latestRound: NodeStats | null = null;

  constructor(
    private readonly gpus: readonly GpuInfo[],
    private readonly sources: NodeSources = osSources,
  ) {}

  /** The latest round, or null before the first one. */
  latest(): NodeStats | null {
    return this.latestRound;
  }

  /** One round: samples everything, keeps it as `latest()` and returns it. */
  async collect(workers: readonly CollectedWorker[]): Promise<NodeStats> {
    const s = this.sources;
    const started = performance.now();
    const notes: string[] = [];

    const cpuNow = cpuTimes(s.cpus());
    const prev = this.prevCpu;
    const dTotal = prev ? cpuNow.total - prev.total : 0;
    const utilisation = prev && dTotal > 0 ? clamp01((cpuNow.busy - prev.busy) / dTotal) : null;
    this.prevCpu = cpuNow;

    const mem = s.memory();
    const gpus = await this.gpuStats(notes);

    // pidusage keeps each pid's previous sample for the CPU figure and forgets it after a minute unused.
    const usage = await s.processes(workers.map((w) => w.pid));
    const workerStats: NodeWorkerStats[] = workers.map((w) => {
      const u = usage.get(w.pid);
      return { port: w.port, topologyId: w.topologyId, pid: w.pid, rssMB: u ? round(u.rssBytes / MB) : null, cpu: u ? round(u.cpu) : null };
    });

    const round_: NodeStats = {
      time: s.now(),
      collectMs: round(performance.now() - started),
      cpu: { cores: s.cpus().length, utilisation: utilisation === null ? null : round(utilisation), load1: round(s.load1()) },
      memory: { totalMB: round(mem.totalBytes / MB), usedMB: round((mem.totalBytes - mem.availableBytes) / MB), availableMB: round(mem.availableBytes / MB) },
      gpus,
      workers: workerStats,
      notes,
    };
    this.latestRound = round_;
    return round_;
  }

  private async gpuStats(notes: string[]): Promise<NodeGpuStats[]> {
    const out: NodeGpuStats[] = [];
    const smi = this.gpus.filter((g) => g.source === 'nvidia-smi');
    let usage: GpuUsageQuery | null = null;
    if (smi.length > 0) {
      usage = await this.sources.gpuUsage();
      if (!usage.ok) notes.push(`GPU usage unknown: ${usage.why}`);
      else notes.push(...usage.warnings);
    }
    for (const g of this.gpus) {
      const base = { id: g.id, source: g.source, utilisation: null, memoryUsedMB: null, memoryTotalMB: null };
      if (g.source === 'webgpu') out.push({ ...base, why: WEBGPU_NO_USAGE });
      else if (g.source === 'declared') out.push({ ...base, memoryTotalMB: g.memoryMB, why: DECLARED_NO_USAGE });
      else if (!usage?.ok) out.push({ ...base, memoryTotalMB: g.memoryMB, why: usage && !usage.ok ? usage.why : 'not asked' });
      else {
        const row = usage.rows.find((r) => r.uuid === g.id);
        if (!row) out.push({ ...base, memoryTotalMB: g.memoryMB, why: 'nvidia-smi did not list this GPU this round' });
        else out.push({ id: g.id, source: g.source, utilisation: row.utilisation, memoryUsedMB: row.memoryUsedMB, memoryTotalMB: row.memoryTotalMB ?? g.memoryMB, why: row.why });
      }
    }
    return out;
  }
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
