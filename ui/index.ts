/**
 * ui — what operators look at, in a room of its own beside the daemons (as
 * Storm keeps storm-webapp apart from storm-server): Storm's UI REST API with
 * Storm's paths and field names (storm-ui/), the web UI at `/` (web/, a
 * Preact page built into dist/ui/web/), Prometheus `/metrics`
 * (prometheus.ts), and Storm's 10-minute, 3-hour and 1-day windows they show
 * (stats/). It reads nimbus only through its read model (nimbus/read-model.ts)
 * and acts only through TopologyControl; it never sees the Nimbus class, and
 * nimbus imports nothing from here: the caller composes the two.
 *
 * @example
 * const nimbus = new Nimbus({ state, config, log });
 * const ui = operatorUi({ readModel: nimbus.readModel, control: nimbus, log });
 * const { app } = await startHttpApi({ nimbus, log, host: '0.0.0.0', port: 6627, plugins: [ui] });
 * await nimbus.start();
 * // …
 * await app.close();
 * await nimbus.stop();
 */
export { operatorUi, type OperatorUiOptions } from './operator-ui.js';
export { prometheusText, LATENCY_BUCKETS_S, type PrometheusSources } from './prometheus.js';
export { StatsHistory, STORM_WINDOWS, type StormWindow, type WindowStats } from './stats/topology-stats.js';
export type { ClusterSummaryView, NimbusSummaryView, SupervisorSummaryView, TopologySummaryView } from './storm-ui/cluster-views.js';
export type { ComponentPageView, TopologyMetricsView, TopologyPageView } from './storm-ui/topology-views.js';
export { WEB_DIR } from './web-ui.js';
