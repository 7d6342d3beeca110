import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { LoginThrottle } from './login-throttle.js';

export interface BasicCredentials {
  username: string;
  password: string;
}

// Hash first so the comparison is constant-time whatever the lengths.
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** The client as the socket sees it (a proxy in front counts as one client). */
const clientOf = (req: Request): string => (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');

/**
 * HTTP Basic authentication; answers 401 with a challenge so browsers prompt. With a `throttle`, wrong credentials
 * count against the client's address and a client past the limit gets 429 with Retry-After (requests without
 * credentials, a browser's first request, are challenged without counting).
 */
export function basicAuth(
  credentials: BasicCredentials,
  realm = 'prospect-sync',
  throttle?: LoginThrottle,
): RequestHandler {
  const expectedUser = digest(credentials.username);
  const expectedPass = digest(credentials.password);
  return (req, res, next) => {
    const client = clientOf(req);
    const waitMs = throttle?.retryAfterMs(client) ?? 0;
    if (waitMs > 0) {
      const seconds = Math.ceil(waitMs / 1000);
      res
        .set('Retry-After', String(seconds))
        .status(429)
        .type('text/plain')
        .send(`too many failed logins from this client: retry in ${seconds} s\n`);
      return;
    }
    const header = req.headers.authorization ?? '';
    const [scheme, encoded] = header.split(' ');
    if (scheme?.toLowerCase() === 'basic' && encoded) {
      const decoded = Buffer.from(encoded, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) {
        const userOk = timingSafeEqual(digest(decoded.slice(0, colon)), expectedUser);
        const passOk = timingSafeEqual(digest(decoded.slice(colon + 1)), expectedPass);
        if (userOk && passOk) {
          throttle?.succeeded(client);
          next();
          return;
        }
      }
    }
    if (header !== '') throttle?.failed(client);
    res
      .set('WWW-Authenticate', `Basic realm="${realm}", charset="UTF-8"`)
      .status(401)
      .type('text/plain')
      .send('authentication required\n');
  };
}
