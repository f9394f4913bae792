/**
 * Human-readable output of `hstorm list` and `hstorm describe`: plain aligned
 * columns, no colours (the output is often piped or pasted into issues).
 */
import { formatUserMetrics } from './user-metrics-format.js';
import type { ResourceVector } from '../common/resources.js';
import type { QueueView, TopologyDetail, TopologySummary } from '../nimbus/views.js';

export function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

function ms(v: number | null): string {
  return v === null ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(1);
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function fixed(v: unknown, digits: number): string {
  const n = num(v);
  return n === null ? '-' : n.toFixed(digits);
}

function str(v: unknown): string {
  return v === undefined || v === null ? '-' : String(v);
}

/** " (GPU 0/2)" beside the worker count of a topology that asks for GPU workers: a topology can have all its workers and none on a GPU. */
function gpuWorkersCell(placed: number, requested: number | undefined): string {
  return requested ? ` (GPU ${placed}/${requested})` : '';
}

/** "waiting 12s", "reserved 3s (waiting 75s)", or "-" when it does not wait. */
function queueCell(q: QueueView | null): string {
  if (!q) return '-';
  return q.state === 'reserved' ? `reserved ${q.reservedSecs ?? 0}s (waiting ${q.waitSecs}s)` : `waiting ${q.waitSecs}s`;
}

export function formatList(rows: TopologySummary[]): string {
  if (rows.length === 0) return 'no topologies running';
  const out = table(
    ['NAME', 'ID', 'STATUS', 'UPTIME', 'WORKERS', 'EXECUTORS', 'UNASSIGNED', 'DOM SHARE', 'QUEUE'],
    rows.map((t) => [
      t.name,
      t.id,
      t.crashLoopingWorkers > 0 ? `${t.status} (crash-looping)` : t.status,
      `${t.uptimeSecs}s`,
      `${t.workers}/${t.workersRequested}${gpuWorkersCell(t.gpuWorkers, t.gpuWorkersRequested)}`,
      String(t.executors),
      String(t.unassigned),
      t.dominantShare.toFixed(2),
      queueCell(t.queue),
    ]),
  );
  const waiting = rows.filter((t) => t.queue);
  if (!waiting.length) return out;
  return [out, '', 'HDRF queue:', ...waiting.map((t) => `  ${t.name}: ${t.queue!.reason}`)].join('\n');
}

function vector(v: ResourceVector): string {
  return `${Number(v.cpu.toFixed(2))} cores, ${Math.round(v.memoryMB)} MB, ${Math.round(v.gpuMemoryMB)} MB GPU memory`;
}

export function formatDetail(d: TopologyDetail): string {
  const out: string[] = [];
  out.push(
    `topology ${d.name} (${d.id})  status ${d.status}${d.crashLooping ? ' (crash-looping)' : ''}  uptime ${d.uptimeSecs}s  workers ${d.workers.length}/${d.workersRequested}` +
      gpuWorkersCell(d.workers.filter((w) => w.gpu).length, d.gpuWorkersRequested) +
      `  scheduler ${d.scheduler ?? '-'}  epoch ${d.epoch ?? '-'}${d.killWaitSecs !== null ? `  (killed, removed after ${d.killWaitSecs}s)` : ''}`,
  );
  const r = d.resources;
  out.push(
    '',
    `resources: holds ${vector(r.holds)}; dominant share ${r.dominantShare.toFixed(2)}${r.dominantResource ? ` (${r.dominantResource})` : ''}` +
      `  [cpu ${r.shares.cpu.toFixed(2)}, memory ${r.shares.memory.toFixed(2)}, GPU memory ${r.shares.gpuMemory.toFixed(2)}]`,
  );
  // The reason opens with how long it has waited or held a reservation ("waiting 6 s: …"): not said twice.
  if (d.queue) out.push(`HDRF queue: ${d.queue.reason}`);
  out.push('', 'components:');
  out.push(
    table(
      ['ID', 'KIND', 'EXECUTORS', 'EMITTED', 'TRANSFERRED', 'ACKED', 'FAILED', 'EXEC MS', 'COMPLETE MS', 'P99 MS', 'CAPACITY', 'BACKEND / SPLIT'],
      Object.entries(d.components).map(([id, c]) => [
        id,
        c.gpu ? `${c.kind} (gpu)` : c.kind,
        String(c.executors),
        String(c.emitted),
        String(c.transferred),
        String(c.acked),
        String(c.failed),
        ms(c.executeLatencyMs),
        ms(c.completeLatencyMs),
        ms(c.completeLatencyP99Ms),
        c.capacity.toFixed(3),
        [
          c.backends.join(',') + (c.fallback ? ' (fallback)' : ''),
          c.split && typeof c.split.gamma === 'number' ? `γ=${c.split.gamma.toFixed(3)}` : '',
        ]
          .filter(Boolean)
          .join(' '),
      ]),
    ),
  );
  const metered = Object.entries(d.components).filter(([, c]) => c.userMetrics);
  if (metered.length) {
    out.push('', 'user metrics:');
    for (const [id, c] of metered) out.push(`  ${id}`, ...formatUserMetrics(c.userMetrics!, '    '));
  }
  const ticking = Object.entries(d.components).filter(([, c]) => (c.ticks ?? 0) > 0);
  if (ticking.length) out.push('', `tick tuples (counted apart from the tuples above): ${ticking.map(([id, c]) => `${id} ${c.ticks}`).join(', ')}`);
  const staleIn = Object.entries(d.components).filter(([, c]) => (c.staleTuples ?? 0) > 0);
  if (staleIn.length) out.push('', `stale tuples dropped unexecuted (their trees had timed out at the spouts, which replay them): ${staleIn.map(([id, c]) => `${id} ${c.staleTuples}`).join(', ')}`);
  const splits = Object.entries(d.components).filter(([, c]) => c.split);
  if (splits.length) {
    out.push('', 'adaptive split (controller task):');
    out.push(
      table(
        ['SPOUT', 'GAMMA', 'DELTA', 'LAT CPU MS', 'LAT GPU MS', 'THETA', 'POLICY', 'WINDOWS', 'SENT CPU', 'SENT GPU'],
        splits.map(([id, c]) => {
          const s = c.split!;
          return [
            id,
            fixed(s.gamma, 3),
            fixed(s.delta, 3),
            ms(num(s.latCpuMs)),
            ms(num(s.latGpuMs)),
            fixed(s.theta, 2),
            str(s.policy),
            str(s.windows),
            str(s.sentCpu),
            str(s.sentGpu),
          ];
        }),
      ),
    );
    for (const [id, c] of splits) out.push(...splitSideLines(id, c.split!));
  }
  const windowed = Object.entries(d.components).filter(([, c]) => c.window);
  if (windowed.length) {
    out.push('', 'windowed bolts (summed over tasks; watermark lag: newest timestamp − watermark, task furthest behind):');
    out.push(
      table(
        ['BOLT', 'WINDOW', 'WINDOWS', 'FAILED', 'MEAN TUPLES', 'MAX TUPLES', 'HELD', 'LATE DROPPED', 'LATE ROUTED', 'WATERMARK LAG MS'],
        windowed.map(([id, c]) => {
          const w = c.window!;
          return [
            id,
            w.spec,
            String(w.windows),
            String(w.failedWindows),
            w.meanWindowTuples === null ? '-' : w.meanWindowTuples.toFixed(1),
            String(w.maxWindowTuples),
            String(w.held),
            w.eventTime ? String(w.lateDropped) : '-',
            w.eventTime ? String(w.lateRouted) : '-',
            w.eventTime ? ms(w.watermarkLagMs) : '-',
          ];
        }),
      ),
    );
  }
  const stateful = Object.entries(d.components).filter(([, c]) => c.state);
  if (stateful.length) {
    const cp = stateful.find(([, c]) => c.state!.role === 'checkpoint')?.[1].state ?? null;
    const provider = stateful.find(([, c]) => c.state!.provider)?.[1].state!.provider ?? null;
    out.push('', `state (${provider ?? 'provider not reported yet'}${cp?.phase ? `; checkpoint ${cp.phase}` : ''}; checkpoint ms: a bolt's own prepare + commit, the checkpoint spout's whole checkpoint):`);
    out.push(
      table(
        ['COMPONENT', 'LAST COMMITTED', 'COMMITS', 'CHECKPOINT P50', 'CHECKPOINT P99', 'KEYS', 'HELD ACKS', 'RECOVERIES', 'FAILURES', 'CORRUPT'],
        stateful.map(([id, c]) => {
          const s = c.state!;
          return [
            id,
            s.lastCommittedTxid === null ? '-' : String(s.lastCommittedTxid),
            String(s.commits),
            ms(s.checkpointMs?.p50 ?? null),
            ms(s.checkpointMs?.p99 ?? null),
            s.keys === null ? '-' : String(s.keys),
            s.role === 'bolt' ? String(s.heldAcks) : '-',
            String(s.recoveries),
            String(s.failures),
            s.role === 'bolt' ? String(s.corruptEntries) : '-',
          ];
        }),
      ),
    );
  }
  const unplaced = Object.entries(d.components).flatMap(([id, c]) => (c.unplacedTargets ?? []).map((u) => ({ id, ...u })));
  if (unplaced.length) {
    out.push('', 'tuples failed at once (their target has no running task):');
    for (const u of unplaced) out.push(`  ${u.id}: ${u.tuples} tuples to ${u.component} on stream ${u.stream}: not placed (${u.reason})`);
  }
  const gpus = Object.entries(d.components).filter(([, c]) => c.gpu || c.backends.length > 0);
  if (gpus.length) {
    out.push('', 'GPU bolts (what actually ran; kernel ms per launch, in-flight ms per tuple from execute to ack):');
    out.push(
      table(
        ['ID', 'RAN ON', 'LAUNCHES', 'FAILED', 'KERNEL P50', 'KERNEL P99', 'IN FLIGHT P50', 'IN FLIGHT P99', 'DEVICE LOST/ERRORS'],
        gpus.map(([id, c]) => {
          const k = c.gpuKernels;
          const ran = k?.ran.length ? k.ran.join(', ') : c.backends.length ? c.backends.join(', ') : 'no launch yet';
          return [
            id,
            ran,
            k ? String(k.launches) : '-',
            k ? String(k.failedLaunches) : '-',
            k ? ms(k.kernelMs.p50) : '-',
            k ? ms(k.kernelMs.p99) : '-',
            k ? ms(k.inFlightMs.p50) : '-',
            k ? ms(k.inFlightMs.p99) : '-',
            k ? `${k.devicesLost}/${k.deviceErrors}` : '-',
          ];
        }),
      ),
    );
    for (const [id, c] of gpus) {
      const why = c.fallbackReasons.length ? `: ${c.fallbackReasons.join('; ')}` : '';
      if (c.fallback) out.push(`  ${id}: FELL BACK to a CPU backend${why}`);
      else if (c.gpuKernels?.onGpu && !c.gpuKernels.onHardwareGpu) out.push(`  ${id}: runs on a software WebGPU adapter (a CPU), as topology.gpu.backend=webgpu asked`);
      for (const a of c.gpuKernels?.adapters ?? []) if (!a.identityVerified) out.push(`  ${id}: GPU identity not verified: ${a.identity}`);
    }
  }
  const errors = Object.entries(d.components).filter(([, c]) => c.lastError);
  if (errors.length) {
    out.push('', 'last error per component:');
    for (const [id, c] of errors) {
      const e = c.lastError!;
      const [head, ...stack] = e.error.split('\n');
      out.push(`  ${id} (task ${e.task} on ${e.host}:${e.port}, ${new Date(e.time).toISOString()}): ${head}`);
      for (const frame of stack.slice(0, 3)) out.push(`    ${frame.trim()}`);
    }
  }
  out.push('', 'workers:');
  out.push(
    table(
      ['SUPERVISOR', 'HOST:PORT', 'GPU', 'STATE', 'PID', 'UPTIME', 'RSS MB', 'EXECUTORS'],
      d.workers.map((w) => [
        w.supervisor,
        `${w.host}:${w.port}`,
        w.gpu ? `${w.gpu.gpuId}${w.gpu.source === 'declared' ? ' (declared)' : ''}` : '-',
        w.exits?.crashLooping ? 'crash-looping' : w.liveness,
        w.metrics ? String(w.metrics.pid) : '-',
        w.metrics ? `${Math.round(w.metrics.uptimeSecs)}s` : '-',
        w.metrics ? w.metrics.rssMB.toFixed(0) : '-',
        w.executors.map((e) => `${e.component}[${e.tasks.join(',')}]`).join(' '),
      ]),
    ),
  );
  out.push(...fencingLines(d.workers));
  const died = d.workers.filter((w) => w.exits);
  if (died.length) {
    out.push('', 'worker deaths (reported by the supervisors):');
    for (const w of died) {
      const e = w.exits!;
      const how = e.lastExit.signal ? `signal ${e.lastExit.signal}` : `exit code ${e.lastExit.code}`;
      out.push(
        `  ${w.supervisor}:${w.port}: ${e.crashLooping ? `CRASH-LOOPING (${e.fastDeaths} deaths in a row within seconds of starting)` : `died ${e.deaths} time(s)`}; last ${how} at ${new Date(e.lastExit.time).toISOString()}`,
      );
      if (e.lastError) out.push(...e.lastError.split('\n').slice(0, 4).map((l, i) => `    ${i === 0 ? 'last error: ' : '  '}${l.trim()}`));
    }
  }
  const reasons = d.workers.filter((w) => w.reason).map((w) => `  ${w.supervisor}:${w.port}: ${w.reason}`);
  if (reasons.length) out.push('', 'placement reasons:', ...reasons);
  if (d.unassigned.length) {
    out.push('', `unassigned executors (${d.unassigned.length}):`);
    for (const u of d.unassigned) out.push(`  ${u.component}[${u.task}]: ${u.reason}`);
  }
  return out.join('\n');
}

/** "GPU side: no running task since 12:03:04 (no running task of gpu-dealer: …)" for each side of a split that has none. */
function splitSideLines(id: string, split: Record<string, unknown>): string[] {
  const sides = split.sides as Record<'cpu' | 'gpu', { downSince: number | null; reason: string | null; running: number }> | undefined;
  if (!sides) return [];
  const out: string[] = [];
  for (const side of ['cpu', 'gpu'] as const) {
    const s = sides[side];
    if (s?.downSince == null) continue;
    out.push(`  ${id}: ${side.toUpperCase()} side: no running task since ${new Date(s.downSince).toISOString()} (${s.reason ?? 'unknown'}); it gets no tuples`);
  }
  return out;
}

/**
 * Workers with something of issue 28's fencing to report: spouts paused for want of ZooKeeper, frames fenced as
 * coming from a stranded worker, stale tuples dropped (docs/faults.md, "Network partitions").
 */
function fencingLines(workers: TopologyDetail['workers']): string[] {
  const lines: string[] = [];
  for (const w of workers) {
    const m = w.metrics;
    if (!m || (!m.spoutsPaused && !m.staleFrames && !m.staleTuples)) continue;
    const parts = [
      ...(m.spoutsPaused ? ['SPOUTS PAUSED (no ZooKeeper for nimbus.task.timeout.secs)'] : []),
      ...(m.staleFrames ? [`${m.staleFrames} frame(s) from stranded workers fenced`] : []),
      ...(m.staleTuples ? [`${m.staleTuples} stale tuple(s) dropped`] : []),
    ];
    lines.push(`  ${w.supervisor}:${w.port}: ${parts.join('; ')}`);
  }
  return lines.length ? ['', 'partitions (fencing and stale tuples):', ...lines] : [];
}
