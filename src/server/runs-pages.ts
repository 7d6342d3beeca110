/**
 * HTML of /runs (every search: what it does now, kept apart from how its last run ended) and /runs/<search> (charts
 * over its history and the history itself).
 */
import { scheduleTimeZone } from '../config/index.js';
import type { RunSummary } from '../runs/run-summary.js';
import type { Turns } from '../shared/in-turns.js';
import { warningCount } from '../runs/run-warnings.js';
import type { AlertInForce } from './alerts-in-force.js';
import { countdown } from './budget-strip.js';
import { esc, page, seconds, table, tableInTurns, when, whenIn, type Column } from './html.js';
import type { LiveRun, SearchRow } from './run-views.js';
import { barChart, sparkline } from './svg-chart.js';

const n = (v: number | undefined): string => esc(v ?? 0);
const enc = encodeURIComponent;

function statusCell(s: RunSummary | undefined): string {
  if (!s) return '<span>never run</span>';
  const w = warningCount(s);
  const warn =
    s.status === 'completed' && w > 0 ? ` <span class="warn">with ${esc(w)} warning${w === 1 ? '' : 's'}</span>` : '';
  const reason = s.stopReason ? ` (${esc(s.stopReason)})` : s.limitedBy ? ` (limited by ${esc(s.limitedBy)})` : '';
  return `<span class="${esc(s.status)}">${esc(s.status)}</span>${reason}${warn}`;
}

function liveText(live: LiveRun, now = Date.now()): string {
  if (live.waitingFor) return `waiting for ${esc(live.waitingFor.join(', '))} (runs after them)`;
  if (live.delayedUntil !== undefined)
    return `delayed (paced): resumes in ${esc(countdown(live.delayedUntil - now))}, ${esc(when(live.delayedUntil))}`;
  const target = live.target > 0 ? ` of ${esc(live.target)}` : '';
  const eta =
    live.etaMs === undefined
      ? live.fetched === 0
        ? ', ETA after the first records'
        : ''
      : `, ETA ${esc(seconds(live.etaMs))}`;
  return (
    `running: ${esc(live.fetched)}${target} records, ${esc(live.tokensSpent)} tokens, ${esc(live.creditsSpent)} ` +
    `credits${eta}`
  );
}

/** A native progress bar (keyboard and screen readers know it) while a run with a known target walks. */
function progressBar(live: LiveRun, search: string): string {
  if (live.waitingFor || live.delayedUntil !== undefined || live.target <= 0) return '';
  return (
    `<br><progress max="${esc(live.target)}" value="${esc(Math.min(live.fetched, live.target))}" ` +
    `aria-label="${esc(`progress of ${search}`)}"></progress>`
  );
}

/** The mirror's figures of a complete run (docs/runs.md, Mirror), on one line; empty for other runs. */
function mirrorLine(s: RunSummary): string {
  if (s.entered === undefined) return '';
  const list =
    s.listAdded === undefined ? '' : ` · ${n(s.listAdded)} added to the list · ${n(s.listRemoved)} removed from it`;
  const pending = s.leaversPending ? ` · ${n(s.leaversPending)} leavers pending` : '';
  return `<br>${n(s.entered)} entered · ${n(s.left)} left · ${n(s.leaveActions)} leave actions${pending}${list}`;
}

function lastResult(s: RunSummary | undefined): string {
  if (!s) return statusCell(s);
  const counts =
    `${n(s.created)} created · ${n(s.updated)} updated · ${n(s.unchanged)} unchanged · ${n(s.rejected)} ` + `rejected`;
  return `${statusCell(s)}<br><span class="muted">${esc(when(s.finishedAt))}</span><br>${counts}${mirrorLine(s)}`;
}

/** Figures in one cell, one `figure label` per line; a figure the run has not (undefined) is left out. */
function figures(pairs: readonly (readonly [string, number | undefined])[]): string {
  return pairs
    .filter(([, v]) => v !== undefined)
    .map(([label, v]) => `<span class="nowrap">${esc(v)} ${esc(label)}</span>`)
    .join('<br>');
}

/** The history's mirror column, once a shown run carries the figures; the list's once a run of a list: search does. */
function mirrorColumns(runs: readonly RunSummary[]): Column<RunSummary>[] {
  const mirror: Column<RunSummary>[] = runs.some((s) => s.entered !== undefined)
    ? [
        {
          head: 'Mirror',
          cell: (s) =>
            figures([
              ['entered', s.entered],
              ['left', s.left],
              ['leave actions', s.leaveActions],
              ['leavers pending', s.leaversPending],
            ]),
          numeric: true,
        },
      ]
    : [];
  const list: Column<RunSummary>[] = runs.some((s) => s.listAdded !== undefined)
    ? [
        {
          head: 'List',
          cell: (s) =>
            figures([
              ['added', s.listAdded],
              ['removed', s.listRemoved],
            ]),
          numeric: true,
        },
      ]
    : [];
  return [...mirror, ...list];
}

/**
 * What a run in refresh mode `changed` walked of its search (docs/runs.md, Refresh on change); blank for other runs.
 */
function refreshCell(s: RunSummary): string {
  const r = s.refresh;
  if (r === undefined) return '';
  const walked = r.walked.changed + r.walked.new + r.walked.stale;
  const why = r.rebuilt ? `new split (${r.rebuilt})` : `${n(r.walked.changed)} changed, ${n(r.walked.stale)} stalest`;
  const held = r.held ? ` · ${n(r.held)} held` : '';
  return (
    `${n(walked)} of ${n(r.rebuilt ? walked : r.kept)} partitions (${why})<br>${n(s.tokensSpent)} ` +
    `of ${n(r.fullTokens)} tokens · ${n(r.counts)} counts${held}`
  );
}

/** The refresh column, once a shown run was walked in refresh mode `changed`. */
function refreshColumns(runs: readonly RunSummary[]): Column<RunSummary>[] {
  return runs.some((s) => s.refresh !== undefined)
    ? [{ head: 'Refresh', cell: refreshCell, className: 'cell-wide' }]
    : [];
}

function alertsBox(alerts: readonly AlertInForce[]): string {
  if (alerts.length === 0) return '<p class="muted" id="alerts">No alert in force.</p>';
  return (
    `<section class="alerts" id="alerts" aria-label="Alerts in force"><h2>Alerts in force ` +
    `(${alerts.length})</h2><ul>${alerts
      .map((a) => `<li><strong>${esc(a.rule)}</strong>${a.subject ? ` · ${esc(a.subject)}` : ''}</li>`)
      .join('')}</ul></section>`
  );
}

export interface OverviewExtras {
  /** The budget strip's HTML (budget-strip.ts). */
  budget?: string;
  alerts?: readonly AlertInForce[];
  /** The "Run now" form of a search; absent in read-only mode. */
  actions?: (search: string) => string;
  /** The render's turns of the event loop (src/shared/in-turns.ts). */
  turns?: Turns;
}

export async function runsIndexPage(rows: readonly SearchRow[], extras: OverviewExtras = {}): Promise<string> {
  const cols: Column<SearchRow>[] = [
    {
      head: 'Search',
      cell: (r) =>
        `<a href="/runs/${enc(r.search.name)}">${esc(r.search.name)}</a><br><span ` +
        `class="muted">${esc(r.search.destination)} · ${esc(r.schedule)}</span>` +
        (r.search.list ? `<br><span class="muted">list ${esc(r.search.list.name)}</span>` : ''),
    },
    {
      head: 'Now',
      cell: (r) =>
        r.live
          ? `<span class="warn">${liveText(r.live)}</span>${progressBar(r.live, r.search.name)}`
          : `idle` +
            `${r.search.after ? `<br><span class="muted">runs after ${esc(r.search.after.join(', '))}</span>` : ''}`,
      className: 'cell-wide',
    },
    {
      head: 'Next run',
      // The dash as an entity: one character past Latin-1 makes V8 keep the whole page two bytes per character.
      cell: (r) =>
        `<span class="nowrap">${esc(whenIn(r.nextRunAt, scheduleTimeZone(r.search.schedule))) || '&#8212;'}</span>`,
    },
    {
      head: 'Last result',
      cell: (r) =>
        lastResult(r.last) + (r.last?.rejected ? ` · <a href="/rejects/${enc(r.search.name)}">rejects</a>` : ''),
      className: 'cell-wide',
    },
    { head: 'Last duration', cell: (r) => esc(seconds(r.last?.durationMs)), numeric: true },
    {
      head: 'Records (last 30)',
      cell: (r) =>
        sparkline(
          [...r.recent].reverse().map((s) => s.fetched),
          `records fetched per run of ${r.search.name}`,
        ),
    },
    {
      head: 'Tokens (last 30)',
      cell: (r) =>
        sparkline(
          [...r.recent].reverse().map((s) => s.tokensSpent),
          `tokens per run of ${r.search.name}`,
        ),
    },
    ...(extras.actions ? [{ head: 'Act', cell: (r: SearchRow) => extras.actions?.(r.search.name) ?? '' }] : []),
  ];
  const running = rows.some(
    (r) => r.live !== undefined && r.live.waitingFor === undefined && r.live.delayedUntil === undefined,
  );
  const searches = await tableInTurns(rows, cols, 'no saved searches configured', { className: 'cards' }, extras.turns);
  const body = `${extras.budget ?? ''}${extras.alerts ? alertsBox(extras.alerts) : ''}<h2>Searches</h2>${searches}`;
  return page('Runs', body, running ? { refreshSeconds: 5 } : {});
}

const TRIGGERS: Record<string, string> = { schedule: 'schedule', manual: 'manual', cli: 'cli' };
const triggerText = (s: RunSummary): string =>
  s.fullResync ? 'full resync' : ((s.trigger && TRIGGERS[s.trigger]) ?? '—');

function charts(runs: readonly RunSummary[]): string {
  const old = [...runs].reverse();
  const of = (f: (s: RunSummary) => number | undefined): number[] => old.map((s) => f(s) ?? 0);
  const dates = old.map((s) => s.startedAt);
  const axes = (yLabel: string): { yLabel: string; dates: string[] } => ({ yLabel, dates });
  return `<div class="charts">${[
    barChart(
      'Records',
      [
        { name: 'created', color: '#1a7f37', values: of((s) => s.created) },
        { name: 'updated', color: '#0969da', values: of((s) => s.updated) },
        { name: 'unchanged', color: '#8c959f', values: of((s) => s.unchanged) },
        { name: 'rejected', color: '#cf222e', values: of((s) => s.rejected) },
      ],
      axes('records per run'),
    ),
    barChart(
      'Tokens',
      [{ name: 'tokens', color: '#8250df', values: of((s) => s.tokensSpent) }],
      axes('tokens per run'),
    ),
    barChart(
      'Credits',
      [{ name: 'credits', color: '#bc4c00', values: of((s) => s.creditsSpent) }],
      axes('credits per run'),
    ),
    barChart('Duration', [{ name: 'duration', color: '#57606a', values: of((s) => s.durationMs) }], {
      format: (v) => seconds(v),
      ...axes('run duration'),
    }),
    // The mirror's figures, once a complete run has kept the search's matches.
    ...(runs.some((s) => s.entered !== undefined || s.left !== undefined)
      ? [
          barChart(
            'Entered and left',
            [
              { name: 'entered', color: '#1a7f37', values: of((s) => s.entered) },
              { name: 'left', color: '#cf222e', values: of((s) => s.left) },
            ],
            axes('members per run'),
          ),
        ]
      : []),
    ...(runs.some((s) => s.listAdded !== undefined)
      ? [
          barChart(
            'List added and removed',
            [
              { name: 'added', color: '#1a7f37', values: of((s) => s.listAdded) },
              { name: 'removed', color: '#cf222e', values: of((s) => s.listRemoved) },
            ],
            axes('list members per run'),
          ),
        ]
      : []),
  ].join('')}</div>`;
}

/** How many, and the first reason as an example: the rejects page lists them all. */
function warningsCell(s: RunSummary): string {
  const count = warningCount(s);
  if (count === 0) return '';
  const first = s.warnings?.first[0];
  return `${esc(count)}${first ? `, e.g. <span class="muted">${esc(first)}</span>` : ''}`;
}

export interface HistoryExtras {
  /** Rows the table shows (the charts use every run passed). */
  limit?: number;
  alerts?: readonly AlertInForce[];
  /** The "Run now" and "Full resync" forms; absent in read-only mode. */
  actions?: string;
}

export function runHistoryPage(
  search: string,
  runs: readonly RunSummary[],
  live: LiveRun | undefined,
  extras: HistoryExtras = {},
): string {
  const rejects = `/rejects/${enc(search)}`;
  const shown = runs.slice(0, extras.limit ?? runs.length);
  const cols: Column<RunSummary>[] = [
    {
      head: 'Started',
      cell: (s) =>
        esc(when(s.startedAt))
          .split(' ')
          .map((part) => `<span class="nowrap">${part}</span>`)
          .join('<br>'),
    },
    { head: 'Trigger', cell: (s) => esc(triggerText(s)) },
    { head: 'Run id', cell: (s) => `<code title="${esc(s.runId)}">${esc(s.runId.slice(0, 8))}</code>` },
    {
      head: 'Status',
      cell: (s) =>
        statusCell(s) +
        (s.dryRun ? ' (dry run)' : '') +
        (s.error ? `<br>${esc(s.error.code)}: ${esc(s.error.message)}` : ''),
      className: 'cell-wide',
    },
    { head: 'Warnings', cell: warningsCell, className: 'cell-wide' },
    {
      head: 'Records',
      cell: (s) =>
        figures([
          ['fetched', s.fetched],
          ['created', s.created],
          ['updated', s.updated],
          ['unchanged', s.unchanged],
        ]) +
        `<br><span ` +
        `class="nowrap">` +
        `${s.rejected || s.linkErrors ? `<a href="${rejects}">${n(s.rejected)}</a>` : n(s.rejected)} ` +
        `rejected</span>`,
      numeric: true,
    },
    {
      head: 'Links made / failed',
      cell: (s) => (s.links ? `${n(s.links.company.linked)} / ${n(s.links.company.linkFailed)}` : n(s.linkErrors)),
      numeric: true,
    },
    {
      head: 'Cost',
      cell: (s) =>
        figures([
          ['tokens', s.tokensSpent],
          ['credits', s.creditsSpent],
          ['429s', s.throttled],
        ]),
      numeric: true,
    },
    ...refreshColumns(shown),
    ...mirrorColumns(shown),
    { head: 'Duration', cell: (s) => esc(seconds(s.durationMs)), numeric: true },
  ];
  const now = live
    ? `<h2>Now</h2><p id="live">${liveText(live)} ` +
      `(run ${esc(live.runId)}${live.startedAt ? `, started ${esc(when(live.startedAt))}` : ''})</p>`
    : '<h2>Now</h2><p id="live">No run in progress.</p>';
  const mine = (extras.alerts ?? []).filter((a) => a.subject === search);
  const alerts = mine.length
    ? `<p class="alerts">Alerts in force: ${mine.map((a) => `<strong>${esc(a.rule)}</strong>`).join(', ')}</p>`
    : '';
  const links =
    `<p><a href="${rejects}">Rejected records and failed links</a> · <a href="/api/runs/${enc(search)}">JSON</a> ` +
    `· <a href="/admin/queues/queue/prospect-sync">Queue in bull-board</a></p>`;
  const history =
    shown.length === 0
      ? '<p>no finished runs yet</p>'
      : `<div class="scroll" role="region" aria-label="Run history" ` +
        `tabindex="0">${table(shown, cols, 'no finished runs yet', { className: 'cards history' })}</div>`;
  const body =
    `${alerts}${extras.actions ? `<div>${extras.actions}</div>` : ''}${now}${links}<h2>Trends</h2>` +
    `${charts(runs.filter((s) => !s.dryRun))}<h2>History</h2>${history}`;
  const running = live !== undefined && live.waitingFor === undefined && live.delayedUntil === undefined;
  return page(`Runs of ${search}`, body, running ? { refreshSeconds: 5 } : {});
}
