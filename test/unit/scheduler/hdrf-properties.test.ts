/**
 * Properties of HDRF over random small clusters with scarce ports, GPU slots,
 * GPU memory, cores and memory, random running and waiting topologies:
 * - nothing over-committed: ports, GPU slots, GPU memory per GPU; cores and
 *   memory of the cluster never pushed over by an admission;
 * - every executor placed or reported with a reason; all or nothing per topology;
 * - the smallest-dominant-share topology whose request fits is never skipped:
 *   replaying the queue in HDRF order, each topology left waiting did not fit
 *   (checked independently, with the placement strategy alone) on what was
 *   free when its turn came; beside a reservation, only on what it does not hold;
 * - a reservation only after OT; deterministic.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ResourceVector } from '../../../common/resources.js';
import { clusterTotals, dominantShare, schedule, type OccupiedSlot, type ScheduleInput, type SchedTopology, type TopologySchedule } from '../../../nimbus/scheduler/index.js';
import { GTX_1060, GTX_970, checkInvariants, gpu, res, topo } from './fixtures.js';

const MODELS = [GTX_1060, GTX_970];
const NOW = 1_000_000;
const EPS = 1e-6;

const supervisorArb = (i: number) =>
  fc
    .record({
      ports: fc.integer({ min: 0, max: 4 }),
      gpus: fc.array(fc.record({ model: fc.integer({ min: 0, max: 1 }), slots: fc.integer({ min: 1, max: 3 }), mem: fc.constantFrom(0, 2000, 4000, 8000) }), { maxLength: 2 }),
      cores: fc.option(fc.constantFrom(1, 2, 4), { nil: undefined }),
      mem: fc.option(fc.constantFrom(1000, 4000), { nil: undefined }),
    })
    .map((s) => ({
      id: `n${i}`,
      host: `h${i}`,
      ports: Array.from({ length: s.ports }, (_, k) => 6700 + k),
      gpus: s.gpus.map((g, j) => gpu(`n${i}-g${j}`, MODELS[g.model]!, g.slots, g.mem)),
      ...(s.cores !== undefined && { cpuCores: s.cores }),
      ...(s.mem !== undefined && { memoryMB: s.mem }),
    }));

const topologyArb = (i: number) =>
  fc
    .record({
      comps: fc.array(
        fc.record({
          par: fc.integer({ min: 1, max: 3 }),
          gpu: fc.boolean(),
          cpu: fc.constantFrom(0, 0.1, 0.5, 1),
          mem: fc.constantFrom(0, 128, 512),
          gpuMem: fc.constantFrom(0, 1000, 3000),
        }),
        { minLength: 1, maxLength: 3 },
      ),
      workers: fc.integer({ min: 1, max: 3 }),
      gpuShare: fc.double({ min: 0, max: 1, noNaN: true }),
      alpha: fc.double({ min: 0, max: 1, noNaN: true }),
      since: fc.integer({ min: 0, max: NOW }),
    })
    .map((t) =>
      topo(
        `t${i}`,
        t.comps.map((c, j) => [`c${j}`, c.par, c.gpu, j > 0 ? [`c${j - 1}`] : [], res(c.cpu, c.mem, c.gpuMem)]),
        { numWorkers: t.workers, numGpuWorkers: Math.floor(t.gpuShare * t.workers), alpha: t.alpha, waitingSince: t.since },
      ),
    );

const inputArb: fc.Arbitrary<ScheduleInput> = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 4 }))
  .chain(([ns, nt]) =>
    fc.record({
      supervisors: fc.tuple(...Array.from({ length: ns }, (_, i) => supervisorArb(i))),
      topologies: fc.tuple(...Array.from({ length: nt }, (_, i) => topologyArb(i))),
      occupied: fc.array(
        fc.record({
          sup: fc.integer({ min: 0, max: ns - 1 }),
          port: fc.integer({ min: 6700, max: 6703 }),
          gpu: fc.option(fc.integer({ min: 0, max: 1 }), { nil: null }),
          // r0/r1 run and are not rescheduled; tK is a waiting topology holding what it still has.
          owner: fc.constantFrom('r0', 'r1', 't0', 't1'),
          cpu: fc.constantFrom(0, 0.5, 1),
          mem: fc.constantFrom(0, 256),
          gpuMem: fc.constantFrom(0, 1000, 2000),
        }),
        { maxLength: 5 },
      ),
      ot: fc.constantFrom(0, 100_000, 10_000_000),
      fallback: fc.boolean(),
    }),
  )
  .map((r) => ({
    cluster: { supervisors: [...r.supervisors] },
    topologies: [...r.topologies],
    occupied: r.occupied.map((o): OccupiedSlot => {
      const gpuId = o.gpu === null ? null : `n${o.sup}-g${o.gpu}`;
      return { supervisorId: `n${o.sup}`, port: o.port, gpuId, topologyId: o.owner, resources: res(o.cpu, o.mem, gpuId ? o.gpuMem : 0) };
    }),
    gpuFallbackToCpu: r.fallback,
    fairness: { mode: 'hdrf' as const, reservationTimeoutMs: r.ot },
    now: NOW,
  }));

/** Occupied as the SlotPool counts it: known supervisor, first claim of a port wins. */
function live(input: ScheduleInput, occ: readonly OccupiedSlot[]): OccupiedSlot[] {
  const known = new Set(input.cluster.supervisors.map((s) => s.id));
  const seen = new Set<string>();
  return occ.filter((o) => {
    const k = `${o.supervisorId}:${o.port}`;
    if (!known.has(o.supervisorId) || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function sum(occ: readonly OccupiedSlot[]): ResourceVector {
  const t = res(0, 0, 0);
  for (const o of occ) {
    t.cpu += o.resources?.cpu ?? 0;
    t.memoryMB += o.resources?.memoryMB ?? 0;
    t.gpuMemoryMB += o.resources?.gpuMemoryMB ?? 0;
  }
  return t;
}

function asOccupied(id: string, s: TopologySchedule): OccupiedSlot[] {
  return s.workers.map((w) => ({ supervisorId: w.supervisorId, port: w.port, gpuId: w.gpu?.gpuId ?? null, topologyId: id, ...(w.resources && { resources: w.resources }) }));
}

/**
 * Would `t` run whole on `state` (its own workers there count as free)? Written
 * here from the definition, with the placement strategy alone (no HDRF code):
 * nothing left out, as many workers and GPU workers as on the empty cluster,
 * and cores and memory within what the cluster has free.
 */
function fitsWhole(input: ScheduleInput, t: SchedTopology, state: readonly OccupiedSlot[]): boolean {
  const others = state.filter((o) => o.topologyId !== t.id);
  const one = (occ: OccupiedSlot[]) => schedule({ cluster: input.cluster, topologies: [t], occupied: occ, gpuFallbackToCpu: input.gpuFallbackToCpu === true }, 'hetero').assignments.get(t.id)!;
  const empty = one([]);
  const now = one(others);
  const gpus = (s: TopologySchedule) => s.workers.filter((w) => w.gpu).length;
  if (empty.unassigned.length > 0 || now.unassigned.length > 0) return false;
  if (now.workers.length !== empty.workers.length || gpus(now) !== gpus(empty)) return false;
  const totals = clusterTotals(input.cluster.supervisors);
  const used = sum(live(input, others));
  const want = sum(asOccupied(t.id, empty));
  return (totals.cpu <= 0 || want.cpu <= totals.cpu - used.cpu + EPS) && (totals.memoryMB <= 0 || want.memoryMB <= totals.memoryMB - used.memoryMB + EPS);
}

describe('scheduler properties: hdrf', () => {
  it('over-commits nothing, places or explains every executor, and admits all or nothing', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const result = schedule(input, 'hdrf');
        checkInvariants(input, result);
        const totals = clusterTotals(input.cluster.supervisors);
        let after: OccupiedSlot[] = [...input.occupied];
        let admitted = 0;
        for (const t of input.topologies) {
          const s = result.assignments.get(t.id)!;
          if (s.queue) {
            assert.deepEqual(s.workers, [], `${t.id} waits but starts workers`);
            assert.equal(s.unassigned.length, t.executors.length);
            assert.ok(s.unassigned.every((u) => u.reason.startsWith('HDRF: ')));
            if (s.queue.state === 'reserved') assert.ok(NOW - s.queue.since >= input.fairness!.reservationTimeoutMs, 'reservation before OT');
          } else {
            assert.deepEqual(s.unassigned, [], `${t.id} admitted with executors left out`);
            admitted++;
            after = [...after.filter((o) => o.topologyId !== t.id), ...asOccupied(t.id, s)];
          }
        }
        const use = sum(live(input, after));
        if (admitted > 0) {
          if (totals.cpu > 0) assert.ok(use.cpu <= totals.cpu + EPS, `cores over-committed: ${use.cpu} of ${totals.cpu}`);
          if (totals.memoryMB > 0) assert.ok(use.memoryMB <= totals.memoryMB + EPS, `memory over-committed: ${use.memoryMB} of ${totals.memoryMB}`);
        }
      }),
      { seed: 1313, numRuns: 300 },
    );
  });

  it('never skips the smallest-dominant-share topology whose request fits', () => {
    let waitedWithoutBarrier = 0;
    let admittedOverSmaller = 0;
    let backfilled = 0;
    fc.assert(
      fc.property(inputArb, (input) => {
        const result = schedule(input, 'hdrf');
        const qs = input.topologies.map((t) => result.assignments.get(t.id)!.queue ?? null);
        const reserved = input.topologies.find((_, i) => qs[i]?.state === 'reserved');
        const totals = clusterTotals(input.cluster.supervisors);
        let state: OccupiedSlot[] = [...input.occupied];
        const shareOf = (t: SchedTopology) => dominantShare(sum(live(input, state).filter((o) => o.topologyId === t.id)), totals).share;
        const key = input.topologies.map((t) => ({ t, share: shareOf(t), since: t.waitingSince ?? NOW }));

        // Topologies admitted on a reservation come first, in order of wait; then HDRF order.
        const viaReservation = (t: SchedTopology) => result.assignments.get(t.id)!.workers.some((w) => w.reason.startsWith('HDRF: admitted on its reservation'));
        for (const { t } of key.filter((k) => viaReservation(k.t)).sort((a, b) => a.since - b.since)) {
          state = [...state.filter((o) => o.topologyId !== t.id), ...asOccupied(t.id, result.assignments.get(t.id)!)];
        }
        if (reserved) {
          // The reserved topology did not fit on what was free after the earlier reservations.
          assert.ok(!fitsWhole(input, reserved, state), `${reserved.id} holds a reservation but fits`);
          // Whoever else got in went beside it, and on none of the GPUs it holds.
          const detail = result.assignments.get(reserved.id)!.queue!.detail;
          const held = new Set([...detail.matchAll(/GPU (\S+)@(\S+) \(/g)].map((m) => `${m[1]}@${m[2]}`));
          for (const t of input.topologies) {
            const s = result.assignments.get(t.id)!;
            if (s.queue || viaReservation(t)) continue;
            assert.ok(s.workers.every((w) => w.reason.startsWith(`HDRF: admitted beside topology ${reserved.id}'s reservation`)), `${t.id} admitted past the reservation`);
            for (const w of s.workers) if (w.gpu) assert.ok(!held.has(`${w.gpu.gpuId}@${w.supervisorId}`), `${t.id} took held GPU ${w.gpu.gpuId}`);
            backfilled++;
          }
          return;
        }
        const order = key.filter((k) => !viaReservation(k.t)).sort((a, b) => a.share - b.share || a.since - b.since || (a.t.id < b.t.id ? -1 : 1));
        let anyAdmitted = false;
        for (const { t } of order) {
          const s = result.assignments.get(t.id)!;
          if (s.queue) {
            assert.ok(!fitsWhole(input, t, state), `${t.id} (share ${shareOf(t)}) was skipped although it fits`);
            if (anyAdmitted) admittedOverSmaller++;
            waitedWithoutBarrier++;
          } else {
            anyAdmitted = true;
            state = [...state.filter((o) => o.topologyId !== t.id), ...asOccupied(t.id, s)];
          }
        }
      }),
      { seed: 4242, numRuns: 1000 },
    );
    // The generator must exercise the property: topologies that wait, some of them after others were admitted.
    assert.ok(waitedWithoutBarrier > 20, `only ${waitedWithoutBarrier} waiting topologies were checked`);
    assert.ok(admittedOverSmaller > 5, `only ${admittedOverSmaller} waited while another went first`);
    assert.ok(backfilled >= 3, `only ${backfilled} topologies were admitted beside a reservation`);
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        assert.deepEqual(schedule(structuredClone(input), 'hdrf'), schedule(input, 'hdrf'));
      }),
      { seed: 7, numRuns: 100 },
    );
  });
});
