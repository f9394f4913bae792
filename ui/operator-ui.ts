/**
 * The UI room on nimbus's HTTP server: one fastify plugin that adds Storm's
 * UI REST API, Prometheus `/metrics` and the web UI at `/`, and keeps Storm's
 * windowed statistics they show, fed from the read model's heartbeat samples.
 * It runs inside nimbus's server, so its auth hook and error handler (4xx/5xx
 * as `{ error: { code, message } }`) apply to these routes too. Nimbus serves
 * them itself rather than a separate `hstorm ui` daemon: the windows and the
 * γ/δ series are memory, sampled from heartbeats nimbus already reads.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../common/logger.js';
import type { ClusterReadModel, TopologyControl } from '../nimbus/read-model.js';
import { registerPrometheus } from './prometheus.js';
import { StatsHistory } from './stats/topology-stats.js';
import { registerStormUiRoutes } from './storm-ui/routes.js';
import { registerWebUi } from './web-ui.js';

export interface OperatorUiOptions {
  readModel: ClusterReadModel;
  /** What Storm UI's POST routes (activate, deactivate, rebalance, kill) call. */
  control: TopologyControl;
  log: Logger;
}

/** The plugin to pass to nimbus's `startHttpApi({ …, plugins })`. */
export function operatorUi({ readModel, control, log }: OperatorUiOptions): (app: FastifyInstance) => void {
  return (app) => {
    const stats = new StatsHistory({ startedAt: readModel.startedAt });
    const unsubscribe = readModel.onHeartbeats(stats);
    app.addHook('onClose', async () => unsubscribe());
    registerStormUiRoutes(app, { readModel, control, stats });
    registerPrometheus(app, { readModel, stats }, log);
    registerWebUi(app);
  };
}
