/** /rejects/<search>: rejected records and failed links with the CRM's (redacted) reason, as HTML and CSV. */
import { stringify } from 'csv-stringify/sync';
import { groupRejects, type RejectEntry } from '../crm/index.js';
import { esc, page, table, when } from './html.js';

const kind = (r: RejectEntry): string => (r.kind === 'link' ? 'link failed' : 'rejected');

/** Rows of the page's full list; the CSV has every entry. */
const LISTED = 100;

export function rejectsPage(search: string, rejects: readonly RejectEntry[], pending: number): string {
  const enc = encodeURIComponent(search);
  const newest =
    rejects.length > LISTED
      ? `<p>The newest ${LISTED} of ${esc(rejects.length)}: <a href="/rejects/${enc}.csv">the CSV</a> has them all.</p>`
      : '';
  const body =
    `<p>${esc(pending)} rejected record(s) not accepted since; each is sent again when a run fetches it ` +
    `again.
Failed links are sent again by the next run, and leave this list once linked. <a href="/rejects/${enc}.csv">Download ` +
    `CSV</a> · <a href="/runs/${enc}">Runs</a></p>
<h2>By code and field</h2>
${table(
  groupRejects(rejects),
  [
    { head: 'Count', cell: (g) => esc(g.count), numeric: true },
    { head: 'Code', cell: (g) => esc(g.code) },
    { head: 'Field', cell: (g) => esc(g.field ?? '—') },
    { head: 'Example', cell: (g) => esc(g.example), className: 'cell-wide' },
  ],
  'no rejected records or failed links',
  { className: 'cards' },
)}
<h2>Every reject, newest first</h2>
${newest}
<div class="scroll" role="region" aria-label="Every reject" tabindex="0">${table(
      rejects.slice(0, LISTED),
      [
        { head: 'At', cell: (r) => esc(when(r.at)) },
        { head: 'Kind', cell: (r) => esc(kind(r)) },
        { head: 'Object', cell: (r) => esc(r.object) },
        { head: 'Match key', cell: (r) => esc(r.key) },
        { head: 'Code', cell: (r) => esc(r.code) },
        { head: 'Field', cell: (r) => esc(r.field ?? '—') },
        { head: 'Reason', cell: (r) => esc(r.reason) },
      ],
      'no rejected records or failed links',
      { className: 'cards' },
    )}</div>`;
  return page(`Rejects of ${search}`, body);
}

// A cell starting like a formula is quoted for spreadsheets (CSV injection): reasons come from the CRM.
const cell = (v: string): string => (/^[=+\-@\t\r]/.test(v) ? `'${v}` : v);

export function rejectsCsv(rejects: readonly RejectEntry[]): string {
  return stringify(
    rejects.map((r) => [r.at, kind(r), r.object, r.key, r.code, r.reason, r.field ?? ''].map(cell)),
    {
      header: true,
      // `field` last: scripts reading the earlier columns by position keep working
      columns: ['at', 'kind', 'object', 'key', 'code', 'reason', 'field'],
    },
  );
}
