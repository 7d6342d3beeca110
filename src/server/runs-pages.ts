/** HTML of /runs (every search) and /runs/<search> (history and the run in progress). */
import type { RunSummary } from '../runs/run-summary.js';
import { warningCount } from '../runs/run-warnings.js';
import { esc, page, seconds, table, when, type Column } from './html.js';
import type { LiveRun, SearchRow } from './run-views.js';

const n = (v: number | undefined): string => esc(v ?? 0);

function statusCell(s: RunSummary | undefined): string {
  if (!s) return '<span>never run</span>';
  const w = warningCount(s);
  const warn = s.status === 'completed' && w > 0 ? ` <span class="warn">with ${esc(w)} warning${w === 1 ? '' : 's'}</span>` : '';
  const reason = s.stopReason ? ` (${esc(s.stopReason)})` : '';
  return `<span class="${esc(s.status)}">${esc(s.status)}</span>${reason}${warn}`;
}

function liveText(live: LiveRun): string {
  if (live.waitingFor) return `waiting for ${esc(live.waitingFor.join(', '))} (runs after them)`;
  const target = live.target > 0 ? ` of ${esc(live.target)}` : '';
  const eta = live.etaMs === undefined ? '' : `, ETA ${esc(seconds(live.etaMs))}`;
  return `running: ${esc(live.fetched)}${target} records, ${esc(live.tokensSpent)} tokens, ${esc(live.creditsSpent)} credits${eta}`;
}

export function runsIndexPage(rows: readonly SearchRow[]): string {
  const cols: Column<SearchRow>[] = [
    { head: 'Search', cell: (r) => `<a href="/runs/${encodeURIComponent(r.search.name)}">${esc(r.search.name)}</a>` },
    { head: 'Destination', cell: (r) => esc(r.search.destination) },
    { head: 'Schedule', cell: (r) => esc(r.schedule) },
    { head: 'Next run', cell: (r) => esc(when(r.nextRunAt)) },
    { head: 'Last status', cell: (r) => (r.live ? `<span class="warn">${liveText(r.live)}</span><br>` : '') + statusCell(r.last) },
    { head: 'Finished', cell: (r) => esc(when(r.last?.finishedAt)) },
    { head: 'Fetched', cell: (r) => n(r.last?.fetched), numeric: true },
    { head: 'Created', cell: (r) => n(r.last?.created), numeric: true },
    { head: 'Updated', cell: (r) => n(r.last?.updated), numeric: true },
    { head: 'Unchanged', cell: (r) => n(r.last?.unchanged), numeric: true },
    { head: 'Rejected', cell: (r) => `<a href="/rejects/${encodeURIComponent(r.search.name)}">${n(r.last?.rejected)}</a>`, numeric: true },
    { head: 'Link errors', cell: (r) => n(r.last?.linkErrors), numeric: true },
    { head: 'Tokens', cell: (r) => n(r.last?.tokensSpent), numeric: true },
    { head: 'Credits', cell: (r) => n(r.last?.creditsSpent), numeric: true },
    { head: 'Throttled (429)', cell: (r) => n(r.last?.throttled), numeric: true },
    { head: 'Duration', cell: (r) => esc(seconds(r.last?.durationMs)), numeric: true },
  ];
  const running = rows.some((r) => r.live !== undefined);
  return page('Runs', table(rows, cols, 'no saved searches configured'), running ? { refreshSeconds: 5 } : {});
}

export function runHistoryPage(search: string, runs: readonly RunSummary[], live: LiveRun | undefined): string {
  const cols: Column<RunSummary>[] = [
    { head: 'Started', cell: (s) => esc(when(s.startedAt)) },
    { head: 'Finished', cell: (s) => esc(when(s.finishedAt)) },
    { head: 'Status', cell: (s) => statusCell(s) + (s.dryRun ? ' (dry run)' : '') },
    { head: 'Warnings', cell: (s) => (s.warnings?.first.length ? esc(s.warnings.first.join('; ')) : esc(warningCount(s) || '')) },
    { head: 'Fetched', cell: (s) => n(s.fetched), numeric: true },
    { head: 'Created', cell: (s) => n(s.created), numeric: true },
    { head: 'Updated', cell: (s) => n(s.updated), numeric: true },
    { head: 'Unchanged', cell: (s) => n(s.unchanged), numeric: true },
    { head: 'Rejected', cell: (s) => n(s.rejected), numeric: true },
    { head: 'Link errors', cell: (s) => n(s.linkErrors), numeric: true },
    { head: 'Tokens', cell: (s) => n(s.tokensSpent), numeric: true },
    { head: 'Credits', cell: (s) => n(s.creditsSpent), numeric: true },
    { head: 'Throttled (429)', cell: (s) => n(s.throttled), numeric: true },
    { head: 'Duration', cell: (s) => esc(seconds(s.durationMs)), numeric: true },
    { head: 'Error', cell: (s) => (s.error ? `${esc(s.error.code)}: ${esc(s.error.message)}` : '') },
  ];
  const now = live
    ? `<h2>In progress</h2><p id="live">${liveText(live)} (run ${esc(live.runId)}, started ${esc(when(live.startedAt))})</p>`
    : '<p id="live">No run in progress.</p>';
  const links = `<p><a href="/rejects/${encodeURIComponent(search)}">Rejected records and failed links</a> · <a href="/api/runs/${encodeURIComponent(search)}">JSON</a></p>`;
  return page(`Runs of ${search}`, `${now}${links}<h2>History</h2>${table(runs, cols, 'no finished runs yet')}`, live ? { refreshSeconds: 5 } : {});
}
