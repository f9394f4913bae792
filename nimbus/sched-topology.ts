/**
 * A stored topology as the scheduler sees it. The conversion itself (task
 * numbering, acker count, α/β/worker counts from config) belongs to the
 * scheduler package, so `hstorm schedule` dry runs and nimbus agree.
 */
import type { Config } from '../common/config/index.js';
import type { StormBase } from '../common/storm-base.js';
import type { SchedTopology } from './scheduler/index.js';
import { toSchedTopology } from './dry-run.js';

export function schedTopologyFor(storm: StormBase): SchedTopology {
  // StormBase.config was built with buildConfig at submit: every key is present and valid.
  return toSchedTopology(storm.id, storm.def, storm.config as Config);
}
