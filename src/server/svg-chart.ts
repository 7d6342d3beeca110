/**
 * Charts as inline SVG drawn on the server: no script, no CDN. Every chart is an image with a text alternative
 * (`role="img"` and a <title>) that states the figures a screen reader needs.
 */
import { esc } from './html.js';

export interface Series {
  name: string;
  /** A CSS colour with at least 3:1 contrast on white (chart marks). */
  color: string;
  /** Oldest first. */
  values: readonly number[];
}

const finite = (v: number): number => (Number.isFinite(v) ? v : 0);
/** `2026-11-25` of an ISO time; empty when there is none. */
const day = (iso: string | undefined): string =>
  iso && !Number.isNaN(Date.parse(iso)) ? new Date(iso).toISOString().slice(0, 10) : '';
const compact = (v: number): string =>
  v >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : v >= 1e4 ? `${Math.round(v / 1e3)}k` : String(Math.round(v));

/** A small line of `values` (oldest first) in a 100 x 24 box; `label` is its text alternative. */
export function sparkline(values: readonly number[], label: string): string {
  const w = 100;
  const h = 24;
  if (values.length === 0) return `<span class="muted">no runs</span>`;
  const max = Math.max(1, ...values.map(finite));
  const step = values.length > 1 ? w / (values.length - 1) : 0;
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(h - 2 - (finite(v) / max) * (h - 4)).toFixed(1)}`)
    .join(' ');
  const last = values.at(-1) ?? 0;
  const alt = `${label}: last ${last}, highest ${max}, over ${values.length} run${values.length === 1 ? '' : 's'}`;
  const line =
    values.length > 1
      ? `<polygon fill="#ddf4ff" ` +
        `points="0,${h} ${points} ${((values.length - 1) * step).toFixed(1)},${h}"/><polyline fill="none" ` +
        `stroke="#0969da" stroke-width="1.5" points="${points}"/>`
      : `<circle cx="2" cy="${(h - 2 - (finite(last) / max) * (h - 4)).toFixed(1)}" r="2" fill="#0969da"/>`;
  return (
    `<span class="spark-wrap"><svg class="spark" role="img" width="${w}" height="${h}" viewBox="0 ` +
    `0 ${w} ${h}"><title>${esc(alt)}</title>${line}</svg><span class="muted" ` +
    `aria-hidden="true">${esc(compact(last))}</span></span>`
  );
}

export interface BarChartOptions {
  /** Writes the y axis figures (durations, counts). */
  format?: (v: number) => string;
  /** What the y axis measures, with its unit ("records per run"). */
  yLabel?: string;
  /** Start date of each run, oldest first (ISO): the x axis shows the first and the last. */
  dates?: readonly string[];
}

/**
 * Stacked bars, one per run (oldest left), with a legend; the y axis says what it measures up to the largest total, the
 * x axis the start dates of the oldest and newest run drawn.
 */
export function barChart(title: string, series: readonly Series[], options: BarChartOptions = {}): string {
  const format = options.format ?? compact;
  const runs = Math.max(0, ...series.map((s) => s.values.length));
  const w = 360;
  const h = 120;
  const left = 56;
  const top = 8;
  const plotH = h - top - 18;
  const totals = Array.from({ length: runs }, (_, i) => series.reduce((n, s) => n + finite(s.values[i] ?? 0), 0));
  const max = Math.max(1, ...totals);
  // At least 30 slots, newest on the right: a young history does not draw a few bars as wide as the chart.
  const slot = (w - left - 4) / Math.max(30, runs);
  const barW = Math.max(1, slot * 0.8);
  const bars: string[] = [];
  for (let i = 0; i < runs; i += 1) {
    let y = top + plotH;
    for (const s of series) {
      const v = finite(s.values[i] ?? 0);
      if (v <= 0) continue;
      const bh = (v / max) * plotH;
      y -= bh;
      bars.push(
        `<rect x="${(w - 4 - (runs - i) * slot).toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" ` +
          `height="${bh.toFixed(1)}" fill="${s.color}"/>`,
      );
    }
  }
  const sums = series.map((s) => `${s.name} ${s.values.reduce((n, v) => n + finite(v), 0)}`).join(', ');
  const yLabel = options.yLabel ?? title.toLowerCase();
  const first = day(options.dates?.[0]) || 'oldest';
  const last = day(options.dates?.at(-1)) || 'newest';
  const span = first === 'oldest' ? 'oldest first' : `started ${first} to ${last}`;
  const alt =
    runs === 0
      ? `${title}: no runs yet`
      : `${title} (${yLabel}) over the last ${runs} runs, ${span}; highest ${format(max)}; totals: ${sums}`;
  const firstX = w - 4 - runs * slot;
  const axis =
    `<line x1="${left - 2}" y1="${top + plotH}" x2="${w}" y2="${top + plotH}" stroke="#57606a"/>` +
    `<text class="y-label" transform="rotate(-90)" x="${-(top + plotH / 2)}" y="9" ` +
    `text-anchor="middle">${esc(yLabel)}</text>` +
    `<text x="${left - 4}" y="${top + 8}" text-anchor="end">${esc(format(max))}</text>` +
    `<text x="${left - 4}" y="${top + plotH}" text-anchor="end">0</text>` +
    (first === last
      ? ''
      : `<text class="x-label" x="${Math.max(left, Math.min(firstX, w - 120)).toFixed(1)}" ` +
        `y="${h - 4}">${esc(first)}</text>`) +
    `<text class="x-label" x="${w - 2}" y="${h - 4}" text-anchor="end">${esc(last)}</text>`;
  const xLabel = `<p class="legend muted">x: run start date (UTC), one bar per run</p>`;
  const legend =
    series.length > 1
      ? `<p ` +
        `class="legend">` +
        `${series.map((s) => `<span><i style="background:${s.color}"></i>${esc(s.name)}</span>`).join(' ')}</p>`
      : '';
  return (
    `<figure class="chart"><figcaption>${esc(title)}</figcaption><svg role="img" viewBox="0 0 ${w} ${h}" ` +
    `preserveAspectRatio="none"><title>${esc(alt)}</title>${axis}${bars.join('')}</svg>${legend}${xLabel}</` +
    `figure>`
  );
}
