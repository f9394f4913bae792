/**
 * A topology as the scheduler sees it: task numbering, acker count, α/β and
 * worker counts from config, and what one executor of each component asks for
 * (CPU in cores, memory, GPU memory). The one place that turns a
 * `TopologyDef` + config into a `SchedTopology`, so nimbus, the `hstorm
 * schedule` dry run and the benchmarks build it alike.
 *
 * Per executor: CPU = `topology.component.cpu.pcore.percent` / 100 cores and
 * memory = `topology.component.resources.onheap.memory.mb` (Storm RAS names;
 * a component's own config, set with setCPULoad / setMemoryLoad, overrides
 * the topology's); GPU memory for a GPU component = its `.gpu({ memoryMB })`,
 * or `topology.gpu.memory.mb` when it declares none. Ackers ask the topology's
 * CPU and memory.
 */
import { withDefaults } from '../common/config/index.js';
import { ConfigError } from '../common/errors.js';
import type { ResourceVector } from '../common/resources.js';
import type { StormBase } from '../common/storm-base.js';
import { ACKER_COMPONENT, computeTasks, type ComponentDef, type TopologyDef } from '../common/topology-def.js';
import type { SchedTopology, SchedulerConfig } from './scheduler/index.js';

type ResourceKey = 'topology.component.cpu.pcore.percent' | 'topology.component.resources.onheap.memory.mb' | 'topology.gpu.memory.mb';

/** A component's own value of a resource key, else the topology's; a bad component value names both. */
function componentValue(c: ComponentDef, key: ResourceKey, topology: SchedulerConfig): number {
  if (!(key in c.config)) return topology[key];
  const v = c.config[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
    throw new ConfigError(`invalid value for config key "${key}" of component "${c.id}": ${JSON.stringify(v)}; allowed: a number ≥ 0`, key, v);
  }
  return v;
}

/** What one executor of `c` asks for. */
export function componentDemand(c: ComponentDef, cfg: SchedulerConfig): ResourceVector {
  const declared = c.gpu?.memoryMB ?? 0;
  return {
    cpu: componentValue(c, 'topology.component.cpu.pcore.percent', cfg) / 100,
    memoryMB: componentValue(c, 'topology.component.resources.onheap.memory.mb', cfg),
    gpuMemoryMB: c.gpu === null ? 0 : declared > 0 ? declared : componentValue(c, 'topology.gpu.memory.mb', cfg),
  };
}

/**
 * The scheduler's view of a topology. `cfg` is the topology's effective
 * config (cluster config overridden by topology config); ackers default to one per worker.
 */
export function toSchedTopology(id: string, def: TopologyDef, config: SchedulerConfig): SchedTopology {
  const numWorkers = config['topology.workers'];
  const ackers = config['topology.acker.executors'] ?? numWorkers;
  const components = def.components.map((c) => ({
    id: c.id,
    parallelism: c.parallelism,
    gpu: c.gpu !== null,
    inputs: [...new Set(c.inputs.map((i) => i.component))],
    resources: componentDemand(c, config),
  }));
  if (ackers > 0) {
    components.push({
      id: ACKER_COMPONENT,
      parallelism: ackers,
      gpu: false,
      inputs: [],
      resources: {
        cpu: config['topology.component.cpu.pcore.percent'] / 100,
        memoryMB: config['topology.component.resources.onheap.memory.mb'],
        gpuMemoryMB: 0,
      },
    });
  }
  return {
    id,
    components,
    executors: computeTasks(def, ackers).map((t) => ({ component: t.component, task: t.task })),
    numWorkers,
    numGpuWorkers: config['topology.gpu.workers'],
    alpha: config['hstorm.scheduler.alpha'],
    beta: config['hstorm.gpu.beta'],
  };
}

export function schedTopologyFor(storm: StormBase): SchedTopology {
  // Defaults underneath fill keys added since (a topology submitted by an older nimbus lacks them).
  return toSchedTopology(storm.id, storm.def, withDefaults(storm.config));
}
