/**
 * Builders for scheduler tests: supervisors, GPUs and topologies in a line each,
 * plus the invariant checks every strategy must pass.
 */
import assert from 'node:assert/strict';
import type { GpuInfo, ResourceVector } from '../../../common/resources.js';
import type {
  OccupiedSlot,
  SchedComponent,
  SchedSupervisor,
  SchedTopology,
  ScheduleInput,
  ScheduleResult,
} from '../../../nimbus/scheduler/index.js';

export const GTX_1060 = { name: 'GeForce GTX 1060', smCount: 10, coresPerSm: 128, clockMHz: 1708, computeCapability: '6.1' };
export const GTX_970 = { name: 'GeForce GTX 970', smCount: 13, coresPerSm: 128, clockMHz: 1253, computeCapability: '5.2' };

export function gpu(id: string, model: typeof GTX_1060, slots = 4, memoryMB = 6144): GpuInfo {
  return { id, ...model, memoryMB, slots, source: 'declared' };
}

export function sup(id: string, ports: number[], gpus: GpuInfo[] = [], capacity: { cores?: number; memoryMB?: number } = {}): SchedSupervisor {
  const s: SchedSupervisor = { id, host: `${id}.local`, ports, gpus };
  if (capacity.cores !== undefined) s.cpuCores = capacity.cores;
  if (capacity.memoryMB !== undefined) s.memoryMB = capacity.memoryMB;
  return s;
}

/** What one executor asks for: cores, memory MB, GPU memory MB. */
export function res(cpu: number, memoryMB: number, gpuMemoryMB = 0): ResourceVector {
  return { cpu, memoryMB, gpuMemoryMB };
}

/** Components as [id, parallelism, gpu, inputs, what one executor asks for?]; executors numbered like computeTasks. */
export function topo(
  id: string,
  comps: ([string, number, boolean, string[]] | [string, number, boolean, string[], ResourceVector])[],
  opts: Partial<Pick<SchedTopology, 'numWorkers' | 'numGpuWorkers' | 'alpha' | 'beta' | 'waitingSince'>> & { ackers?: number } = {},
): SchedTopology {
  const components: SchedComponent[] = comps.map(([cid, parallelism, g, inputs, r]) => ({ id: cid, parallelism, gpu: g, inputs, ...(r && { resources: r }) }));
  const ackers = opts.ackers ?? 0;
  if (ackers > 0) components.push({ id: '__acker', parallelism: ackers, gpu: false, inputs: [] });
  const executors = [];
  let task = 1;
  for (const c of components) for (let i = 0; i < c.parallelism; i++) executors.push({ component: c.id, task: task++ });
  return {
    id,
    components,
    executors,
    numWorkers: opts.numWorkers ?? 1,
    numGpuWorkers: opts.numGpuWorkers ?? 0,
    alpha: opts.alpha ?? 0,
    beta: opts.beta ?? 0.3,
    ...(opts.waitingSince !== undefined && { waitingSince: opts.waitingSince }),
  };
}

/** Capacity rules and "every executor placed or reported", for any strategy. */
export function checkInvariants(input: ScheduleInput, result: ScheduleResult): void {
  const sups = new Map(input.cluster.supervisors.map((s) => [s.id, s]));
  const usedPorts = new Set<string>();
  const gpuUse = new Map<string, number>();
  const gpuMem = new Map<string, number>();
  const fair = !!input.fairness;
  // With fairness a topology being scheduled may get back the slots it holds; they are checked as its own below.
  const pendingIds = new Set(input.topologies.map((t) => t.id));
  const released = (o: OccupiedSlot) => fair && o.topologyId !== undefined && pendingIds.has(o.topologyId);
  const placedIds = new Set<string>();
  for (const t of input.topologies) if ((result.assignments.get(t.id)?.queue ?? null) === null) placedIds.add(t.id);
  for (const o of input.occupied) {
    if (!sups.has(o.supervisorId)) continue;
    const key = `${o.supervisorId}:${o.port}`;
    if (usedPorts.has(key)) continue;
    // A waiting topology keeps what it holds; an admitted one was re-placed from scratch.
    if (released(o) && placedIds.has(o.topologyId!)) continue;
    usedPorts.add(key);
    if (o.gpuId !== null) {
      const k = `${o.supervisorId}/${o.gpuId}`;
      gpuUse.set(k, (gpuUse.get(k) ?? 0) + 1);
      gpuMem.set(k, (gpuMem.get(k) ?? 0) + (o.resources?.gpuMemoryMB ?? 0));
    }
  }
  const occupiedGpu = new Map(gpuUse);
  const occupiedMem = new Map(gpuMem);
  assert.deepEqual([...result.assignments.keys()], input.topologies.map((t) => t.id));
  for (const t of input.topologies) {
    const a = result.assignments.get(t.id)!;
    const seen = new Map<number, string>();
    for (const w of a.workers) {
      const s = sups.get(w.supervisorId);
      assert.ok(s, `worker on unknown supervisor ${w.supervisorId}`);
      assert.ok(s.ports.includes(w.port), `port ${w.port} is not one of ${s.id}'s`);
      const key = `${w.supervisorId}:${w.port}`;
      assert.ok(!usedPorts.has(key), `port ${key} double-booked`);
      usedPorts.add(key);
      assert.ok(w.executors.length > 0, 'empty worker');
      assert.ok(w.reason.length > 0);
      if (w.gpu) {
        const g = s.gpus.find((x) => x.id === w.gpu!.gpuId);
        assert.ok(g, `GPU ${w.gpu.gpuId} not on ${s.id}`);
        const k = `${s.id}/${g.id}`;
        gpuUse.set(k, (gpuUse.get(k) ?? 0) + 1);
        assert.ok(gpuUse.get(k)! <= Math.max(g.slots, occupiedGpu.get(k) ?? 0), `GPU ${k} over its ${g.slots} slots`);
        const mb = w.resources?.gpuMemoryMB ?? 0;
        gpuMem.set(k, (gpuMem.get(k) ?? 0) + mb);
        if (g.memoryMB > 0 && mb > 0) assert.ok(gpuMem.get(k)! <= Math.max(g.memoryMB, occupiedMem.get(k) ?? 0), `GPU ${k} over its ${g.memoryMB} MB: ${gpuMem.get(k)} MB declared`);
      }
      for (const x of w.executors) {
        assert.ok(!seen.has(x.task), `task ${x.task} placed twice`);
        seen.set(x.task, 'placed');
        const comp = t.components.find((c) => c.id === x.component);
        if (comp?.gpu && !input.gpuFallbackToCpu) assert.ok(w.gpu, `GPU executor ${x.task} in a CPU worker`);
      }
    }
    for (const u of a.unassigned) {
      assert.ok(!seen.has(u.task), `task ${u.task} both placed and unassigned`);
      seen.set(u.task, 'unassigned');
      assert.ok(u.reason.length > 0);
    }
    assert.equal(seen.size, t.executors.length, `topology ${t.id}: ${t.executors.length - seen.size} executors dropped`);
    const gpuWorkers = a.workers.filter((w) => w.gpu).length;
    assert.ok(gpuWorkers <= t.numGpuWorkers, 'more GPU workers than asked');
    assert.ok(a.workers.length <= t.numWorkers, 'more workers than asked');
  }
}

export function occupied(supervisorId: string, port: number, gpuId: string | null = null, topologyId?: string, resources?: ResourceVector): OccupiedSlot {
  return { supervisorId, port, gpuId, ...(topologyId !== undefined && { topologyId }), ...(resources && { resources }) };
}
