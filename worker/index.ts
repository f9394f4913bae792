/**
 * worker — one worker process of one topology: the executors of its tasks
 * (executor/), where their tuples go (routing/, task-table.ts) and how they
 * travel — in memory inside the process (executor-transfer.ts), as batched
 * columnar frames over ZeroMQ between processes (transport/, batch-receiver.ts)
 * — Storm's XOR acking (acking/), the GPU backends of GPU bolts (gpu/), what a
 * task's TopologyContext offers (context/), and the worker's lifecycle,
 * heartbeats and settings (worker.ts, worker-heartbeat.ts, worker-settings.ts).
 * It also loads topology modules, the same way in `submit`, `local` and every
 * worker (load-topology.ts). A supervisor starts the process entry point,
 * main.ts, as a child process; it is never imported.
 *
 * @example
 * const { topology } = await loadConfiguredTopology(resolveModulePath('examples/word-count', root), { 'topology.workers': 2 });
 * const worker = new Worker({ launch, store, log, stormBase, assignment, topology });
 * await worker.start();
 * // …
 * await worker.stop();
 */
export { Worker, type WorkerOptions } from './worker.js';
export { workerSettings, componentSettings, type WorkerSettings, type ComponentSettings, type LoadSettings } from './worker-settings.js';
export { loadTopology, loadConfiguredTopology, resolveModulePath, defaultTopologyName, checkSameShape, type LoadedTopology, type ConfiguredTopology } from './load-topology.js';
export { TupleFieldError, TupleValueError, ContextHookError, SignalContentionError, WorkerNotAssignedError, GpuLaunchError, ComponentStartError } from './errors.js';
export { RuntimeTuple, type AnchorIds } from './executor/runtime-tuple.js';
export { ZmqTransport, type TransportOptions, type TransportHandlers, type PeerAddress } from './transport/zmq-transport.js';
export { stampOf, tagOf, UNSTAMPED, type FrameStamp } from './transport/frame-stamp.js';
export { encodeBatch, decodeBatch, encodeRecord, decodeRecord, isWireTuple, WIRE_VERSION, type WireTuple, type WireBatch } from './transport/wire-codec.js';
export { readFrame, type Frame } from './transport/frame-reader.js';
export { ValueTypes, ValueRefusal, inspectValues, NO_VALUE_TYPES } from '../common/values/value-types.js';
export { toWireForm, registerValueTypes, decodingWith } from '../common/values/wire-form.js';
export { tickTuple } from './executor/tick-source.js';
export { linkSecurityOf, type LinkSecurity } from './transport/link-security.js';
export { selectGpuBackend, releaseWebGpu, WorkerGpuBackends, type GpuBackendProbes, type GpuBackendSelection, type ForcedBackend, type GpuSlot } from './gpu/gpu-backend.js';
