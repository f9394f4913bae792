/**
 * `POST /api/v1/supervisors/:id/worker-beats`: where supervisors send their
 * workers' liveness every `worker.heartbeat.frequency.secs`
 * (common/worker-beats-report.ts). At 1 000 supervisors this route takes
 * 1 000 requests a second, so it does the least it can: a small body limit,
 * one zod check, an in-memory update, 204. A malformed report is refused with
 * 400, counted, and logged at most a few times per window, so a broken
 * supervisor cannot flood nimbus's log; nothing it sends can make nimbus fail.
 */
import type { FastifyInstance } from 'fastify';
import { RateLimitedLog, type Logger } from '../common/logger.js';
import { workerBeatsReportSchema, type WorkerBeatsReport } from '../common/worker-beats-report.js';
import { BadRequestError } from './errors.js';

/** A report is a few hundred bytes; 4 096 workers' beats stay far below this. */
const BODY_LIMIT = 1024 * 1024;

export interface WorkerBeatsRouteOptions {
  receive: (report: WorkerBeatsReport) => void;
  log: Logger;
  /** Counts refused reports (nimbus's health). */
  refused: () => void;
}

export function registerWorkerBeatsRoute(app: FastifyInstance, prefix: string, o: WorkerBeatsRouteOptions): void {
  const warn = new RateLimitedLog(o.log);
  app.post<{ Params: { id: string } }>(`${prefix}/supervisors/:id/worker-beats`, { bodyLimit: BODY_LIMIT }, async (req, reply) => {
    const parsed = workerBeatsReportSchema.safeParse(req.body);
    if (parsed.success && parsed.data.supervisorId === req.params.id) {
      o.receive(parsed.data);
      return reply.status(204).send();
    }
    const issue = parsed.success ? null : parsed.error.issues[0];
    const problem = parsed.success
      ? `supervisorId "${parsed.data.supervisorId}" is not the supervisor of the URL ("${req.params.id}")`
      : `${issue?.path.join('.') || '(body)'}: ${issue?.message ?? 'malformed'}`;
    o.refused();
    warn.warn({ supervisor: req.params.id, remote: req.ip, problem }, 'refused a malformed worker-beats report');
    const err = new BadRequestError(`invalid worker-beats report: ${problem}`, 'body');
    return reply.status(400).send({ error: { code: err.code, message: err.message } });
  });
}
