import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../shared/logger.js';

/** A path that does not percent-decode (`/rejects/%ZZ`) is the client's mistake: 400, before any route sees it. */
export function malformedPathRefused(): RequestHandler {
  return (req, res, next) => {
    try {
      decodeURIComponent(req.path);
    } catch {
      res.status(400).type('text/plain').send('bad request: the path is not valid percent-encoding\n');
      return;
    }
    next();
  };
}

const statusOf = (err: unknown): number | undefined => {
  const { status, statusCode } = (err ?? {}) as { status?: unknown; statusCode?: unknown };
  const value = typeof status === 'number' ? status : statusCode;
  return typeof value === 'number' && value >= 400 && value < 500 ? value : undefined;
};

/**
 * The last handler: a client error that a parser or router flagged (a 4xx `status`) is answered as such and logged
 * at debug; anything else is ours: 500, logged at error. Neither answer carries the error's text or stack.
 */
export function requestErrorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const status = statusOf(err);
    if (status !== undefined) logger.debug({ status, method: req.method }, 'dashboard request refused');
    else logger.error({ err }, 'dashboard request failed');
    if (res.headersSent) return;
    if (status !== undefined)
      res
        .status(status)
        .type('text/plain')
        .send(`${STATUS_CODES[status] ?? 'bad request'}\n`);
    else res.status(500).type('text/plain').send('internal error\n');
  };
}
