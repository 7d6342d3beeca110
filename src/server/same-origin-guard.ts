import type { Request, RequestHandler } from 'express';

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** Whether a browser says the request comes from a page of another origin (Sec-Fetch-Site, else Origin vs Host). */
function crossSite(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  // Neither header: not a browser (curl, scripts), which cannot ride a victim's cached credentials.
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== (req.headers.host ?? '').toLowerCase();
  } catch {
    return true; // `null` (sandboxed frames, file:) and garbage
  }
}

const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

const mediaType = (type: string | undefined): string | undefined => type?.split(';')[0]?.trim().toLowerCase();
const isJson = (type: string | undefined): boolean => mediaType(type) === 'application/json';
const isForm = (type: string | undefined): boolean => mediaType(type) === 'application/x-www-form-urlencoded';

/**
 * Cross-site request forgery: a page elsewhere can make the browser send a "simple" POST (text/plain or a form) that
 * carries the dashboard's cached basic-auth credentials. Every state-changing request must come from a page of the
 * dashboard itself (403 otherwise) and send JSON (415 otherwise), which a cross-site page can only do after a
 * CORS preflight that we never grant. A request without a body may omit the type (bull-board's own buttons do).
 * `formPath`: the paths that take a same-origin HTML form post instead; their handler checks its CSRF token.
 */
export function sameOriginGuard(formPath: (path: string) => boolean = () => false): RequestHandler {
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) {
      next();
      return;
    }
    if (crossSite(req)) {
      res
        .status(403)
        .type('text/plain')
        .send('forbidden: cross-site request refused (Origin / Sec-Fetch-Site is not this dashboard)\n');
      return;
    }
    const type = req.headers['content-type'];
    if (isJson(type) || (type === undefined && !hasBody(req)) || (isForm(type) && formPath(req.path))) {
      next();
      return;
    }
    res
      .status(415)
      .type('text/plain')
      .send('unsupported media type: state-changing requests must send Content-Type: application/json\n');
  };
}
