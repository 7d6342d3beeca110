import type { RequestHandler } from 'express';

/**
 * Only our own scripts run: bull-board's UI ships its bundles under /admin/queues/static, and our pages have none.
 * Inline styles stay allowed (our pages and bull-board's loading screen use them; CSS cannot run code). No third
 * party is contacted (bull-board's Google Fonts link is refused: the UI falls back to system fonts).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Headers on every answer: no framing (clickjacking of the board's buttons), no MIME sniffing, no referrer leaving
 * the dashboard, and nothing cached: every page holds run data, and a shared cache must not keep an answer that
 * needed credentials. `staticPrefix`: immutable assets (bull-board's bundles) that browsers may cache.
 */
export function securityHeaders(staticPrefix: string): RequestHandler {
  return (req, res, next) => {
    res.set({
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
    });
    if (!req.path.startsWith(staticPrefix)) res.set('Cache-Control', 'no-store');
    next();
  };
}
