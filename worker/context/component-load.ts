/**
 * How loaded a component is, read from the worker heartbeats in the cluster
 * state — what the split's `capacity` policy compares (capacity = executors ÷
 * mean service time). A GPU bolt's execute only queues a tuple, so its
 * service time is its kernel time per tuple instead.
 */
import type { ClusterState } from '../../common/cluster-state.js';
import type { ExecutorMetrics, WorkerHeartbeat } from '../../common/storm-base.js';
import { ZkPaths } from '../../common/zk-paths.js';
import type { ComponentLoad } from '../../topology-sdk/context.js';
import { z } from 'zod';
import { readJsonIfPresent } from '../../common/cluster-state/json-node.js';

/** What this file reads of a heartbeat, validated (a malformed beat is skipped, never a TypeError mid-estimate). */
const beatShape = z.looseObject({
  time: z.number(),
  executors: z.array(
    z.looseObject({
      component: z.string(),
      executeLatencyMs: z.looseObject({ count: z.number(), mean: z.number() }),
      gpu: z.looseObject({ launches: z.number(), tuples: z.number(), kernelMs: z.looseObject({ mean: z.number() }) }).optional(),
    }),
  ),
});

/** Heartbeats older than this belong to dead workers and are ignored. */
const STALE_MS = 30_000;

/** Mean time one executor spends per tuple, or null before it reported any. */
export function serviceMs(m: ExecutorMetrics): number | null {
  const g = m.gpu;
  if (g && g.launches > 0 && g.tuples > 0 && g.kernelMs.mean > 0) return (g.kernelMs.mean * g.launches) / g.tuples;
  if (m.executeLatencyMs.count > 0 && m.executeLatencyMs.mean > 0) return m.executeLatencyMs.mean;
  return null;
}

/** Executors ÷ Σ(1 / service time): the mean that makes executors ÷ mean the component's capacity. */
export function componentLoadFrom(beats: readonly WorkerHeartbeat[], component: string, now = Date.now()): ComponentLoad {
  let executors = 0;
  let rate = 0;
  for (const b of beats) {
    if (now - b.time > STALE_MS) continue;
    for (const m of b.executors) {
      if (m.component !== component) continue;
      const s = serviceMs(m);
      if (s === null) continue;
      executors++;
      rate += 1 / s;
    }
  }
  return { executors, meanServiceMs: executors > 0 ? executors / rate : null };
}

export async function readComponentLoad(store: ClusterState, topologyId: string, component: string): Promise<ComponentLoad> {
  const dir = ZkPaths.workerbeatsOf(topologyId);
  const names = await store.children(dir).catch(() => [] as string[]);
  const beats: WorkerHeartbeat[] = [];
  for (const n of names) {
    // Validated in what serviceMs reads; the rest of the beat is the writer's business.
    const b = (await readJsonIfPresent(store, ZkPaths.childOf(dir, n), beatShape).catch(() => null)) as WorkerHeartbeat | null;
    if (b && Array.isArray(b.executors)) beats.push(b);
  }
  return componentLoadFrom(beats, component);
}
