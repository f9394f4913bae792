/**
 * `hstorm/testing`: test topologies as with Storm's Testing API —
 * `completeTopology` (run until every tuple is done, read what each component
 * emitted on every stream, with mocked spout sources per stream), the
 * `LocalCluster` it runs on (`await LocalCluster.start()`, Storm's
 * `submitTopology(name, conf, topology)`), and for unit tests of one
 * component without a cluster: `testTuple` / `testTickTuple` (Storm's
 * Testing.testTuple), capturing collectors and a `testContext`; and Storm's
 * `FeederSpout`, fed by the test while its topology runs on a LocalCluster.
 *
 * @example
 * import { completeTopology, MockedSources } from 'hstorm/testing';
 * const result = await completeTopology('topologies/word-count.ts', {
 *   mockedSources: new MockedSources().addMockData('sentences', ['the cow jumped']),
 * });
 * result.readTuples('split'); // [['the'], ['cow'], ['jumped']]
 */
export { TestingTimeoutError } from '../common/errors.js';
export { completeTopology, type CompleteTopologyOptions, type CompletedTopology } from './complete-topology.js';
export type { CapturedTuple } from './capture.js';
export { MockedSources, type MockedSourcesInput, type MockedData } from './mocked-sources.js';
export { LocalCluster, type LocalClusterOptions } from '../cli/local-cluster.js';
export { WorkerCrashLoopError } from '../cli/crash-loop.js';
export { testTuple, testTickTuple, type TestTupleOptions } from './test-tuple.js';
export { CapturingOutputCollector, CapturingBasicOutputCollector, CapturingSpoutOutputCollector, type CapturedEmit, type CapturingOptions } from './capturing-collectors.js';
export { testContext, type TestContext, type TestContextOptions, type LoggedLine } from './test-context.js';
export { FeederSpout, type AckFailDelegate } from './feeder-spout.js';
export { FeederNotConnectedError } from '../common/errors.js';
