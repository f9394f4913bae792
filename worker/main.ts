/**
 * Worker process entry point (started by a supervisor, never imported):
 * connect to the cluster state, read the topology and the assignment, load
 * the topology module, run the Worker until SIGTERM.
 */
import { decodeWorkerLaunch, WORKER_ENV } from '../common/worker-env.js';
import { createLogger, flushThenExit } from '../common/logger.js';
import { enableSourceMaps } from '../common/ts-module.js';
import type { ClusterState } from '../common/cluster-state.js';
import { IpcClusterState } from '../common/cluster-state/ipc-client.js';
import { connectZooKeeper, zookeeperOptions } from '../common/cluster-state/zookeeper-store.js';
import { ZkPaths } from '../common/zk-paths.js';
import { assignmentSchema, stormBaseSchema } from '../common/record-schemas.js';
import { loadTopology, checkSameShape } from './load-topology.js';
import { readJsonIfPresent } from '../common/cluster-state/json-node.js';
import { Worker } from './worker.js';
import { WorkerNotAssignedError } from './errors.js';
import { linkSecurityOf } from './transport/link-security.js';
import { installGpuRuntime } from './gpu/gpu-runtime.js';
import { releaseWebGpu } from './gpu/gpu-backend.js';

// Before any topology code loads: stack traces from a compiled TypeScript module or a bundle name the user's lines.
enableSourceMaps();
const launch = decodeWorkerLaunch(process.env);
// The launch holds the ZooKeeper credentials and the CURVE secret key: read once here, it leaves the environment
// before topology code loads, so neither process.env nor a process that code spawns carries it on.
delete process.env[WORKER_ENV];
const log = createLogger('worker').child({ topology: launch.topologyId, port: launch.port });

async function connect(): Promise<ClusterState> {
  if (launch.state === 'ipc') return new IpcClusterState({ log });
  return connectZooKeeper(zookeeperOptions(launch.clusterConfig), log);
}

async function main(): Promise<void> {
  const store = await connect();
  const base = await readJsonIfPresent(store, ZkPaths.storm(launch.topologyId), stormBaseSchema);
  const assignment = await readJsonIfPresent(store, ZkPaths.assignment(launch.topologyId), assignmentSchema);
  if (!base || !assignment) throw new WorkerNotAssignedError(`topology ${launch.topologyId} has no ${base ? 'assignment' : 'definition'} in the cluster state`, launch.topologyId);
  installGpuRuntime(launch, log);
  const { topology, def } = await loadTopology(launch.modulePath, base.config);
  checkSameShape(base.def, def, launch.modulePath, base.parallelismOverrides);
  let stopping = false;
  const link = await linkSecurityOf(launch.clusterConfig, launch.curve);
  const worker = new Worker({ launch, store, log, stormBase: base, assignment, topology, link, onRetired: (why) => shutdown(why) });
  function shutdown(why: string): void {
    if (stopping) return;
    stopping = true;
    log.info({ why }, 'worker shutting down');
    void worker
      .stop()
      .catch((err: unknown) => log.error({ err }, 'stop failed'))
      // Dawn crashes a process that exits with a live device: release it first.
      .then(() => releaseWebGpu())
      .catch((err: unknown) => log.warn({ err }, 'releasing WebGPU failed'))
      .finally(() => {
        void store.close().finally(() => flushThenExit(log, 0));
      });
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Local mode: the parent holding the store went away — nothing left to work for.
  if (launch.state === 'ipc') process.on('disconnect', () => shutdown('parent disconnected'));
  await worker.start();
}

process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
process.on('uncaughtException', (err) => {
  // Unknown state: let the supervisor restart a clean process.
  log.fatal({ err }, 'uncaught exception; exiting');
  flushThenExit(log, 70);
});

main().catch((err: unknown) => {
  log.fatal({ err }, 'worker failed to start');
  flushThenExit(log, 1);
});
