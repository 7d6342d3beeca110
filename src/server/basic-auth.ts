import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';

export interface BasicCredentials {
  username: string;
  password: string;
}

// Hash first so the comparison is constant-time whatever the lengths.
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** HTTP Basic authentication; answers 401 with a challenge so browsers prompt. */
export function basicAuth(credentials: BasicCredentials, realm = 'prospect-sync'): RequestHandler {
  const expectedUser = digest(credentials.username);
  const expectedPass = digest(credentials.password);
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    const [scheme, encoded] = header.split(' ');
    if (scheme?.toLowerCase() === 'basic' && encoded) {
      const decoded = Buffer.from(encoded, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) {
        const userOk = timingSafeEqual(digest(decoded.slice(0, colon)), expectedUser);
        const passOk = timingSafeEqual(digest(decoded.slice(colon + 1)), expectedPass);
        if (userOk && passOk) {
          next();
          return;
        }
      }
    }
    res.set('WWW-Authenticate', `Basic realm="${realm}", charset="UTF-8"`).status(401).type('text/plain').send('authentication required\n');
  };
}
