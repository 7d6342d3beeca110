/** Server-rendered HTML: every table works without JavaScript. Every value goes through `esc`. */
import { Turns } from '../shared/in-turns.js';
export { when, whenIn } from '../shared/when.js';
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE =
  `*{box-sizing:border-box}body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d232a;background:#fff}
main{padding:0 1.5rem 1.5rem;max-width:1280px}nav{padding:.6rem 1.5rem;background:#24292f}nav ` +
  `a{color:#fff;margin-right:1.2rem}
a{color:#0550ae}h1{font-size:1.5rem;margin:1rem 0 .5rem}h2{font-size:1.15rem;margin:1.2rem 0 ` +
  `.4rem}h3{font-size:1rem;margin:0 0 .3rem}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #d0d7de;padding:.25rem ` +
  `.5rem;text-align:left;vertical-align:top}
th{background:#f3f5f7}td.n{text-align:right;font-variant-numeric:tabular-nums}
.completed{color:#1a7f37}.failed{color:#cf222e}.partial,.delayed,.warn{color:#9a6700}.muted{color:#57606a}
.strip{display:flex;flex-wrap:wrap;gap:.8rem;margin:.5rem 0 1rem}.card{border:1px solid ` +
  `#d0d7de;border-radius:6px;padding:.6rem .8rem;min-width:16rem;flex:1}
.card p{margin:.2rem 0}.big{font-size:1.3rem;font-weight:600}.gauge{width:100%;height:8px;display:block}
.alerts{border-left:4px solid #cf222e;background:#fff5f5;padding:.4rem .8rem}.alerts ul{margin:.2rem ` +
  `0;padding-left:1.2rem}
.spark-wrap{display:flex;align-items:center;gap:.3rem}.spark{display:block}form.act{display:inline-block;margin:0 ` +
  `.3rem .3rem 0}
button{font:inherit;padding:.2rem .6rem;border:1px solid ` +
  `#1f6feb;border-radius:6px;background:#0969da;color:#fff;cursor:pointer;white-space:nowrap}
a:focus-visible,button:focus-visible,[tabindex]:focus-visible{outline:3px solid #fb8f44;outline-offset:2px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:1rem}.chart{margin:0}.chart ` +
  `svg{width:100%;height:120px;font-size:10px;fill:#57606a}
.chart figcaption{font-weight:600}.legend{margin:.2rem 0;font-size:.85rem}.legend ` +
  `i{display:inline-block;width:.8rem;height:.8rem;margin:0 .25rem 0 .6rem;vertical-align:-1px}
.scroll{overflow-x:auto;max-width:100%}table.history{font-size:12px}table.history th{vertical-align:bottom}
table.history ` +
  `.cell-wide{max-width:13rem;overflow-wrap:anywhere}.cell-wide{max-width:22rem;overflow-wrap:break-word}` +
  `.nowrap{white-space:nowrap}
@media (max-width:700px){main{padding:0 .8rem 1rem}nav{padding:.6rem .8rem}
table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}
table.cards tr{border:1px solid #d0d7de;border-radius:6px;margin-bottom:.8rem;padding:.3rem}
table.cards td{border:0;padding:.2rem .3rem;text-align:left}table.cards ` +
  `td[data-label]::before{content:attr(data-label) ": ";font-weight:600}}`;

export function page(title: string, body: string, options: { refreshSeconds?: number } = {}): string {
  const refresh = options.refreshSeconds ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">` : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
    `content="width=device-width, initial-scale=1">${refresh}<title>${esc(title)} · prospect-sync</title>
<style>${STYLE}</style></head><body><nav aria-label="Main"><a href="/runs">Runs</a><a href="/admin/queues">Queues ` +
    `(bull-board)</a><a href="/metrics">Metrics</a></nav>
<main><h1>${esc(title)}</h1>${body}</main></body></html>`
  );
}

export interface Column<T> {
  head: string;
  cell: (row: T) => string;
  numeric?: boolean;
  className?: string;
}

/** `cell` returns HTML: callers escape values (esc) themselves. */
export interface TableOptions {
  className?: string;
  caption?: string;
}

/** A table's rows, one `<tr>` each. */
function tableRows<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cls = (c: Column<T>): string => {
    const names = [c.numeric ? 'n' : '', c.className ?? ''].filter(Boolean).join(' ');
    return names ? ` class="${names}"` : '';
  };
  return rows
    .map((r) => `<tr>${columns.map((c) => `<td${cls(c)} data-label="${esc(c.head)}">${c.cell(r)}</td>`).join('')}</tr>`)
    .join('\n');
}

function tableAround<T>(body: string, columns: readonly Column<T>[], options: TableOptions): string {
  const head = columns.map((c) => `<th scope="col">${esc(c.head)}</th>`).join('');
  const caption = options.caption ? `<caption class="muted">${esc(options.caption)}</caption>` : '';
  return (
    `<table${options.className ? ` class="${options.className}"` : ''}>${caption}<thead><tr>${head}</tr></` +
    `thead><tbody>\n${body}\n</tbody></table>`
  );
}

export function table<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  empty: string,
  options: TableOptions = {},
): string {
  if (rows.length === 0) return `<p>${esc(empty)}</p>`;
  return tableAround(tableRows(rows, columns), columns, options);
}

/**
 * `table`, its rows rendered in turns of the event loop by time (src/shared/in-turns.ts): a page of hundreds of rows
 * never holds the process (its probes, other requests) for more than a slice, however long a row takes.
 */
export async function tableInTurns<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  empty: string,
  options: TableOptions = {},
  turns: Turns = new Turns(),
): Promise<string> {
  if (rows.length === 0) return `<p>${esc(empty)}</p>`;
  const parts: string[] = [];
  for (const row of rows) {
    parts.push(tableRows([row], columns));
    await turns.pause();
  }
  return tableAround(parts.join('\n'), columns, options);
}

export function seconds(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
}
