import assert from 'node:assert/strict';
import fc from 'fast-check';
import { schedule, type ScheduleInput, type SchedulerStrategy } from '../../../nimbus/scheduler/index.js';
import { GTX_1060, GTX_970, checkInvariants, gpu, res, topo } from './fixtures.js';

const H200 = { name: 'NVIDIA H200', smCount: 132, coresPerSm: 128, clockMHz: 1980, computeCapability: '9.0' };
const MODELS = [GTX_1060, GTX_970, H200];

const supervisorArb = (i: number) =>
  fc.record({
    ports: fc.uniqueArray(fc.integer({ min: 6700, max: 6705 }), { minLength: 0, maxLength: 5 }),
    gpus: fc.array(fc.record({ model: fc.integer({ min: 0, max: 2 }), slots: fc.integer({ min: 0, max: 4 }) }), { maxLength: 3 }),
  }).map((s) => ({
    id: `n${i}`,
    host: `h${i}`,
    ports: s.ports,
    gpus: s.gpus.map((g, j) => gpu(`n${i}-g${j}`, MODELS[g.model]!, g.slots)),
  }));

const topologyArb = (i: number) =>
  fc
    .record({
      comps: fc.array(
        fc.record({
          par: fc.integer({ min: 1, max: 5 }),
          gpu: fc.boolean(),
          inputs: fc.array(fc.nat(), { maxLength: 2 }),
          // GPU memory one executor declares: GPUs of 6144 MB fill up by memory before slots.
          gpuMem: fc.constantFrom(0, 0, 1500, 4000),
        }),
        { minLength: 1, maxLength: 5 },
      ),
      ackers: fc.integer({ min: 0, max: 2 }),
      workers: fc.integer({ min: 1, max: 5 }),
      gpuShare: fc.double({ min: 0, max: 1, noNaN: true }),
      alpha: fc.double({ min: 0, max: 1, noNaN: true }),
      beta: fc.double({ min: 0, max: 1, noNaN: true }),
    })
    .map((t) =>
      topo(
        `t${i}`,
        t.comps.map((c, j) => [`c${j}`, c.par, c.gpu, c.inputs.map((k) => `c${k % t.comps.length}`), res(0.1, 64, c.gpuMem)]),
        { numWorkers: t.workers, numGpuWorkers: Math.floor(t.gpuShare * t.workers), alpha: t.alpha, beta: t.beta, ackers: t.ackers },
      ),
    );

const inputArb: fc.Arbitrary<ScheduleInput> = fc
  .tuple(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 5 }))
  .chain(([ns, nt]) =>
    fc.record({
      supervisors: fc.tuple(...Array.from({ length: ns }, (_, i) => supervisorArb(i))),
      topologies: fc.tuple(...Array.from({ length: nt }, (_, i) => topologyArb(i))),
      occupied: fc.array(
        fc.record({
          sup: fc.integer({ min: 0, max: ns }),
          port: fc.integer({ min: 6700, max: 6706 }),
          gpu: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
          gpuMem: fc.constantFrom(0, 3000),
        }),
        { maxLength: 8 },
      ),
      fallback: fc.boolean(),
    }),
  )
  .map((r) => ({
    cluster: { supervisors: [...r.supervisors] },
    topologies: [...r.topologies],
    occupied: r.occupied.map((o) => ({
      supervisorId: `n${o.sup}`,
      port: o.port,
      gpuId: o.gpu === null ? null : `n${o.sup}-g${o.gpu}`,
      ...(o.gpu !== null && { resources: res(0, 0, o.gpuMem) }),
    })),
    gpuFallbackToCpu: r.fallback,
  }));

for (const strategy of ['even', 'hetero'] as SchedulerStrategy[]) {
  describe(`scheduler properties: ${strategy}`, () => {
    it('never books a port twice or a GPU over its slots; places or reports every executor', () => {
      fc.assert(
        fc.property(inputArb, (input) => {
          checkInvariants(input, schedule(input, strategy));
        }),
        { seed: 2024, numRuns: 400 },
      );
    });

    it('is deterministic: the same input, in any supervisor order, gives the same output', () => {
      fc.assert(
        fc.property(inputArb, (input) => {
          const a = schedule(input, strategy);
          const b = schedule(structuredClone(input), strategy);
          assert.deepEqual(b, a);
          const shuffled = { ...input, cluster: { supervisors: [...input.cluster.supervisors].reverse() } };
          assert.deepEqual(schedule(shuffled, strategy), a);
        }),
        { seed: 99, numRuns: 150 },
      );
    });
  });
}
