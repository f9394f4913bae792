/**
 * Builds the executor of one task: the acker, or an instance of the
 * component from the topology module's factory run by a spout or bolt
 * executor, with the component's settings (worker-settings.ts).
 */
import { TopologyLoadError } from '../../common/errors.js';
import { ACKER_COMPONENT, type TopologyDef } from '../../common/topology-def.js';
import { Spout } from '../../topology-sdk/components.js';
import type { StormTopology } from '../../topology-sdk/topology-builder.js';
import { AckerExecutor } from '../acking/acker-executor.js';
import type { ComponentSettings } from '../worker-settings.js';
import { BoltExecutor } from './bolt-executor.js';
import type { Executor } from './executor.js';
import type { ExecutorHost } from './executor-host.js';
import { SpoutExecutor } from './spout-executor.js';

export interface ExecutorSources {
  host: ExecutorHost;
  def: TopologyDef;
  topology: StormTopology;
  /** The file the topology was loaded from, to name in an error. */
  modulePath: string;
  settingsOf: (component: string) => ComponentSettings;
}

export class ExecutorFactory {
  constructor(private readonly src: ExecutorSources) {}

  /** A new executor, not started yet. */
  create(component: string, task: number): Executor {
    const { host, def, topology } = this.src;
    const settings = this.src.settingsOf(component);
    if (component === ACKER_COMPONENT) return new AckerExecutor(host, task, settings);
    const factory = topology.factories.get(component);
    // checkSameShape passed, so only a module whose factories differ from its definition gets here.
    if (!factory) throw new TopologyLoadError(`the topology module ${this.src.modulePath} has no component "${component}"`, this.src.modulePath);
    const instance = factory();
    if (instance instanceof Spout) return new SpoutExecutor(host, component, task, settings, instance);
    const kind = def.components.find((c) => c.id === component)?.kind;
    if (kind === 'spout') return new SpoutExecutor(host, component, task, settings, instance as unknown as Spout);
    return new BoltExecutor(host, component, task, settings, instance as Exclude<typeof instance, Spout>);
  }
}
