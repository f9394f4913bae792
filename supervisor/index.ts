/**
 * supervisor — the node daemon: discovers this node's CPU slots (ports) and
 * GPUs, registers them in an ephemeral znode (rewritten when what it says
 * changes), watches the assignments, fetches topology code, runs one worker
 * process per assigned slot (restarting dead or hung ones, stopping
 * unassigned ones), and sends nimbus its workers' liveness, one message a
 * period for all of them.
 *
 * @example
 * const sup = new Supervisor({ state, config, log });
 * await sup.start();
 * // …
 * await sup.stop(); // stops its workers, leaves the cluster
 */
export { Supervisor, type SupervisorOptions, type SupervisorWorkerState } from './supervisor.js';
export { supervisorSettings, type SupervisorSettings } from './supervisor-config.js';
export { WorkerLauncher, LaunchedWorker, type WorkerLauncherOptions, type WorkerSpec, type WorkerExit, type IpcServe } from './worker-launcher.js';
export { CodeFetcher, type CodeFetcherOptions } from './code-fetcher.js';
export { BundleDownloadError, WorkerLaunchError } from './errors.js';
export { packageRoot, defaultWorkerEntry } from '../common/package-root.js';
export { discoverGpus, gpuDiscoveryConfig, type GpuDiscovery, type GpuDiscoveryConfig } from './gpu-discovery.js';
