/** The overview's budget strip: tokens left of the allotment, the reset, the pace to it, and credits today per cap. */
import type { BudgetState } from '../source/budget-states.js';
import type { SavedSearch } from '../config/index.js';
import { forecastAllotmentInTurns, paceFromHistory } from '../runs/allotment-forecast.js';
import type { RecentRun } from '../runs/run-overview.js';
import type { Turns } from '../shared/in-turns.js';
import { esc, when } from './html.js';

export interface BudgetStripInput {
  budgets: readonly BudgetState[];
  caps: { maxPerRun?: number; maxPerDay?: number };
  /** `source.tokens.reserve`: runs stop at it, so the forecast leaves it out. */
  reserve: number;
  /**
   * Every search with its recent runs, newest first: the forecast's pace (src/runs/allotment-forecast.ts, as `plan
   * --all`).
   */
  searches: readonly { search: SavedSearch; recent: readonly RecentRun[] }[];
  now: number;
}

const num = (v: number): string => Math.round(v).toLocaleString('en-US');

export function countdown(ms: number): string {
  if (ms <= 0) return 'due now';
  const h = Math.floor(ms / 3_600_000);
  const d = Math.floor(h / 24);
  return d > 0
    ? `${d} d ${h % 24} h`
    : h > 0
      ? `${h} h ${Math.floor((ms % 3_600_000) / 60_000)} min`
      : `${Math.ceil(ms / 60_000)} min`;
}

/** A bar of `used` of `total` as an image with its figures as the text alternative. */
function gauge(share: number, label: string): string {
  const pct = Math.max(0, Math.min(1, Number.isFinite(share) ? share : 0));
  const color = pct > 0.9 ? '#cf222e' : pct > 0.7 ? '#9a6700' : '#1a7f37';
  return (
    `<svg class="gauge" role="img" viewBox="0 0 100 8" preserveAspectRatio="none"><title>${esc(label)}</title>` +
    `<rect width="100" height="8" fill="#eaeef2"/><rect width="${(pct * 100).toFixed(1)}" height="8" ` +
    `fill="${color}"/></svg>`
  );
}

async function tokensCard(b: BudgetState, input: BudgetStripInput, turns?: Turns): Promise<string> {
  const t = b.tokens;
  if (!t)
    return `<div class="card"><h3>Tokens</h3><p>balance not seen yet (the first search answer reports it)</p></div>`;
  const used = t.limit > 0 ? (t.limit - t.remaining) / t.limit : 0;
  // The scheduled runs until the reset at each search's recent pace; a search that has not run yet has no pace here
  // (`plan --all` spends one free count on it).
  const paced = input.searches.flatMap(({ search, recent }) => {
    const pace = search.schedule ? paceFromHistory(recent) : null;
    return pace ? [{ search: search.name, schedule: search.schedule, pace }] : [];
  });
  const f = await forecastAllotmentInTurns(
    { balance: t, reserve: input.reserve, searches: paced, now: new Date(input.now) },
    turns,
  );
  const unpaced = input.searches.filter((s) => s.search.schedule).length - paced.length;
  const pace =
    paced.length === 0
      ? 'no scheduled search has run yet: no forecast'
      : (f.exhaustsAt !== null
          ? `<strong class="failed">the scheduled runs need ${num(f.tokens)} tokens before the reset: the ` +
            `allotment runs out in ${esc(countdown(Date.parse(f.exhaustsAt) - input.now))} (a run ` +
            `of ${esc(f.exhaustedBy ?? '')})</strong>`
          : `the scheduled runs need about ${num(f.tokens)} tokens before the reset: ~${num(f.tokensLeftAtReset)} ` +
            `left then`) + (unpaced > 0 ? ` <span class="muted">(${unpaced} not yet run, not counted)</span>` : '');
  return (
    `<div class="card"><h3>Tokens</h3><p class="big">${num(t.remaining)} <span class="muted">left ` +
    `of ${num(t.limit)}</span></p>
${gauge(used, `${num(t.limit - t.remaining)} of ${num(t.limit)} tokens used`)}
<p>Resets in <strong>${esc(countdown(t.resetAt - input.now))}</strong> ` +
    `(${esc(when(t.resetAt))})</p><p>${pace}</p></div>`
  );
}

function creditsCard(b: BudgetState, caps: BudgetStripInput['caps']): string {
  const usedToday = (maxPerDay: number): string => `${num(b.creditsToday)} of ${num(maxPerDay)} credits used today`;
  const day =
    caps.maxPerDay === undefined
      ? `<p class="big">${num(b.creditsToday)} <span class="muted">today, no daily cap</span></p>`
      : `<p class="big">${num(b.creditsToday)} <span class="muted">of ${num(caps.maxPerDay)} ` +
        `today</span></p>${gauge(b.creditsToday / caps.maxPerDay, usedToday(caps.maxPerDay))}`;
  const run = caps.maxPerRun === undefined ? 'no cap per run' : `at most ${num(caps.maxPerRun)} per run`;
  return `<div class="card"><h3>Credits</h3>${day}<p>${esc(run)}; ${num(b.creditsTotal)} in all</p></div>`;
}

/** The strip of every account; its forecasts in turns of the event loop (`turns`: the render's). */
export async function budgetStrip(input: BudgetStripInput, turns?: Turns): Promise<string> {
  if (input.budgets.length === 0)
    return (
      '<section aria-label="Budget" class="strip"><p>No budget state yet: nothing has called the ' +
      'API.</p></section>'
    );
  const many = input.budgets.length > 1;
  const sections: string[] = [];
  for (const b of input.budgets)
    sections.push(
      `<section aria-label="Budget${many ? ` of account ${esc(b.account)}` : ''}" ` +
        `class="strip">${await tokensCard(b, input, turns)}${creditsCard(b, input.caps)}</section>`,
    );
  return sections.join('');
}
