/**
 * `hstorm/testing`: unit-test topologies as with Storm's Testing API —
 * `completeTopology` (run until every tuple is done, read what each component
 * emitted, with mocked spout sources) and the `LocalCluster` it runs on
 * (nimbus, supervisor and real worker processes in one call).
 *
 * @example
 * import { completeTopology } from 'hstorm/testing';
 * const result = await completeTopology('topologies/word-count.ts', {
 *   mockedSources: { sentences: [['the cow jumped']] },
 * });
 * result.readTuples('split'); // [['the'], ['cow'], ['jumped']]
 */
export { TestingTimeoutError } from '../common/errors.js';
export { completeTopology, type CompleteTopologyOptions, type CompletedTopology } from './complete-topology.js';
export { LocalCluster, type LocalClusterOptions } from '../cli/local-cluster.js';
