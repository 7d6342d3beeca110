import { isIPv4 } from 'node:net';
import type { Request, RequestHandler } from 'express';

/** Whether `host` (a bind address or a Host header's name) names this machine only: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost' || name === '::1' || name === '[::1]') return true;
  return isIPv4(name) && name.startsWith('127.');
}

/**
 * The name part of a Host header (`localhost:3000` -> `localhost`, `[::1]:3000` -> `[::1]`); undefined when malformed.
 */
function hostName(header: string): string | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/i.exec(header);
  return m?.[1];
}

/** Headers a proxy adds on the way in: a request carrying one was sent on by another machine's client. */
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip'] as const;

/** The proxy header a request carries, if any. */
function proxyHeaderOf(req: Request): string | undefined {
  return PROXY_HEADERS.find((name) => req.headers[name] !== undefined);
}

/**
 * Without auth the dashboard trusts whoever can reach loopback. A page on another site can still reach it through a
 * name that resolves to 127.0.0.1 (DNS rebinding): the browser then sends that name as Host. Only loopback names
 * are served; anything else is 421 Misdirected Request. A proxy in front would make the board public: a request
 * carrying a proxy header is refused (403).
 */
export function loopbackHostOnly(): RequestHandler {
  return (req, res, next) => {
    const name = hostName(req.headers.host ?? '');
    if (name === undefined || !isLoopbackName(name)) {
      res
        .status(421)
        .type('text/plain')
        .send(
          'misdirected request: without server.auth the dashboard answers only to localhost, 127.0.0.1 or [::1] ' +
            'as Host\n',
        );
      return;
    }
    const proxied = proxyHeaderOf(req);
    if (proxied !== undefined) {
      res
        .status(403)
        .type('text/plain')
        .send(`forbidden: this request came through a proxy (${proxied} header); set server.auth to serve it\n`);
      return;
    }
    next();
  };
}
