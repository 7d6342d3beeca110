/**
 * "Run now" and "Full resync" from the pages: plain HTML forms (no script) posting to /runs/<search>/run.
 * Forgery: the guard lets only this path through as a form post from the dashboard's own origin, and the form must
 * carry the token of a `SameSite=Strict` cookie (double submit): a page elsewhere can neither read the cookie nor make
 * the browser send it. Stateless, so several dashboards behind a load balancer accept each other's forms.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queue } from 'bullmq';
import express from 'express';
import { enqueueRun, type EnqueueResult } from '../queue/enqueue-run.js';
import type { SyncJobData, SyncJobResult } from '../queue/job-data.js';
import { esc, page } from './html.js';

const COOKIE = 'ps_csrf';

/** The path of the form post for `search`, and its test for the same-origin guard. */
export const runActionPath = (search: string): string => `/runs/${encodeURIComponent(search)}/run`;
export const isRunActionPath = (path: string): boolean => /^\/runs\/[^/]+\/run$/.test(path);

function cookieToken(req: express.Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE && /^[0-9a-f]{64}$/.test(value.join('='))) return value.join('=');
  }
  return undefined;
}

/** The session's token: the cookie's, or a new one set on this answer. */
export function csrfToken(req: express.Request, res: express.Response): string {
  const known = cookieToken(req);
  if (known) return known;
  const token = randomBytes(32).toString('hex');
  res.append('Set-Cookie', `${COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`);
  return token;
}

function validToken(req: express.Request): boolean {
  const cookie = cookieToken(req);
  const sent = (req.body as Record<string, unknown> | undefined)?.csrf;
  if (!cookie || typeof sent !== 'string' || sent.length !== cookie.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(cookie));
}

/** The buttons of one search (both forms, or "Run now" alone for the overview's narrow column). */
export function runButtons(search: string, token: string, options: { resync?: boolean } = {}): string {
  const hidden = `<input type="hidden" name="csrf" value="${esc(token)}">`;
  const action = esc(runActionPath(search));
  const run =
    `<form method="post" action="${action}" class="act">${hidden}<button type="submit" aria-label="Run ` +
    `now: ${esc(search)}">Run now</button></form>`;
  const resync = options.resync
    ? `<form method="post" action="${action}" class="act">${hidden}<input type="hidden" name="fullResync" ` +
      `value="1"><button type="submit" aria-label="Full resync: ${esc(search)}">Full resync</button></form>`
    : '';
  return run + resync;
}

/** Place 1 = next to start. Undefined when the job is not waiting (already active, delayed, done). */
async function placeInLine(queue: Queue<SyncJobData, SyncJobResult>, jobId: string): Promise<number | undefined> {
  const waiting = await queue.getJobs(['waiting', 'prioritized'], 0, -1, true);
  const at = waiting.findIndex((j) => j.id === jobId);
  return at < 0 ? undefined : at + 1;
}

function queuedPage(result: EnqueueResult, fullResync: boolean, place: number | undefined): string {
  const s = encodeURIComponent(result.search);
  const what = result.deduplicated
    ? `A run of ${esc(result.search)} was already ${esc(result.state)}: nothing new was queued (never two runs of ` +
      `one search).`
    : `${fullResync ? 'Full resync' : 'Run'} of ${esc(result.search)} queued.`;
  const where = place !== undefined ? `place ${esc(place)} in the waiting list` : `state: ${esc(result.state)}`;
  return page(
    `Run of ${result.search}`,
    `<p role="status" id="queued">${what} Job <a ` +
      `href="/admin/queues/queue/prospect-sync/${encodeURIComponent(result.jobId)}">${esc(result.jobId)}</a>, ` +
      `${where}.</p>
<p><a href="/runs/${s}">Back to ${esc(result.search)}</a> · <a href="/runs">All runs</a></p>`,
  );
}

/** POST /runs/<search>/run (fields `csrf`, optional `fullResync=1`): queues the run, answers with its job and place. */
export function runActionsRouter(
  queue: Queue<SyncJobData, SyncJobResult>,
  known: (search: string) => boolean,
): express.Router {
  const router = express.Router();
  router.post('/runs/:search/run', express.urlencoded({ extended: false, limit: '2kb' }), async (req, res, next) => {
    try {
      const search = String(req.params.search);
      if (!validToken(req)) {
        res
          .status(403)
          .type('text/plain')
          .send("forbidden: the form's CSRF token is missing or stale; reload the page and try again\n");
        return;
      }
      if (!known(search)) {
        res.status(404).type('text/plain').send('unknown search\n');
        return;
      }
      const fullResync = (req.body as Record<string, unknown>).fullResync === '1';
      const result = await enqueueRun(queue, search, 'manual', { fullResync });
      const place = await placeInLine(queue, result.jobId);
      // A worker may have taken it meanwhile: say where it is now.
      const now = place === undefined ? { ...result, state: await queue.getJobState(result.jobId) } : result;
      res
        .status(result.deduplicated ? 200 : 202)
        .type('html')
        .send(queuedPage(now, fullResync, place));
    } catch (err) {
      next(err);
    }
  });
  return router;
}
