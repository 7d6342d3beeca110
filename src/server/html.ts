/** Server-rendered HTML: every table works without JavaScript. Every value goes through `esc`. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d232a}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left}
th{background:#f3f5f7}td.n{text-align:right;font-variant-numeric:tabular-nums}
.completed{color:#1a7f37}.failed{color:#cf222e}.partial,.delayed,.warn{color:#9a6700}nav a{margin-right:1rem}`;

export function page(title: string, body: string, options: { refreshSeconds?: number } = {}): string {
  const refresh = options.refreshSeconds ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">${refresh}<title>${esc(title)} · prospect-sync</title>
<style>${STYLE}</style></head><body><nav><a href="/runs">Runs</a><a href="/admin/queues">Queues</a></nav>
<h1>${esc(title)}</h1>${body}</body></html>`;
}

export interface Column<T> { head: string; cell: (row: T) => string; numeric?: boolean }

/** `cell` returns HTML: callers escape values (esc) themselves. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[], empty: string): string {
  if (rows.length === 0) return `<p>${esc(empty)}</p>`;
  const head = columns.map((c) => `<th>${esc(c.head)}</th>`).join('');
  const body = rows.map((r) => `<tr>${columns.map((c) => `<td${c.numeric ? ' class="n"' : ''}>${c.cell(r)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export function seconds(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
}

export function when(iso: string | number | undefined): string {
  if (iso === undefined) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
