/** The overview's budget strip: tokens left of the allotment, the reset, the pace to it, and credits today per cap. */
import type { BudgetState } from '../source/budget-states.js';
import { esc, when } from './html.js';
import { projectTokenSpend } from './spend-projection.js';

export interface BudgetStripInput {
  budgets: readonly BudgetState[];
  caps: { maxPerRun?: number; maxPerDay?: number };
  /** Recent finished runs of every search (for the pace). */
  runs: readonly { finishedAt: string; tokensSpent: number }[];
  now: number;
}

const num = (v: number): string => Math.round(v).toLocaleString('en-US');

export function countdown(ms: number): string {
  if (ms <= 0) return 'due now';
  const h = Math.floor(ms / 3_600_000);
  const d = Math.floor(h / 24);
  return d > 0 ? `${d} d ${h % 24} h` : h > 0 ? `${h} h ${Math.floor((ms % 3_600_000) / 60_000)} min` : `${Math.ceil(ms / 60_000)} min`;
}

/** A bar of `used` of `total` as an image with its figures as the text alternative. */
function gauge(share: number, label: string): string {
  const pct = Math.max(0, Math.min(1, Number.isFinite(share) ? share : 0));
  const color = pct > 0.9 ? '#cf222e' : pct > 0.7 ? '#9a6700' : '#1a7f37';
  return `<svg class="gauge" role="img" viewBox="0 0 100 8" preserveAspectRatio="none"><title>${esc(label)}</title>`
    + `<rect width="100" height="8" fill="#eaeef2"/><rect width="${(pct * 100).toFixed(1)}" height="8" fill="${color}"/></svg>`;
}

function tokensCard(b: BudgetState, input: BudgetStripInput): string {
  const t = b.tokens;
  if (!t) return `<div class="card"><h3>Tokens</h3><p>balance not seen yet (the first search answer reports it)</p></div>`;
  const used = t.limit > 0 ? (t.limit - t.remaining) / t.limit : 0;
  const p = projectTokenSpend(input.runs, t, input.now);
  const pace = !p
    ? 'no run in the last 7 days: no pace yet'
    : p.exhaustedAt !== undefined
      ? `<strong class="failed">at ${num(p.perDay)} tokens/day the allotment runs out in ${esc(countdown(p.exhaustedAt - input.now))}, before the reset</strong>`
      : `at ${num(p.perDay)} tokens/day: about ${num(p.leftAtReset)} left at the reset`;
  return `<div class="card"><h3>Tokens</h3><p class="big">${num(t.remaining)} <span class="muted">left of ${num(t.limit)}</span></p>
${gauge(used, `${num(t.limit - t.remaining)} of ${num(t.limit)} tokens used`)}
<p>Resets in <strong>${esc(countdown(t.resetAt - input.now))}</strong> (${esc(when(t.resetAt))})</p><p>${pace}</p></div>`;
}

function creditsCard(b: BudgetState, caps: BudgetStripInput['caps']): string {
  const day = caps.maxPerDay === undefined
    ? `<p class="big">${num(b.creditsToday)} <span class="muted">today, no daily cap</span></p>`
    : `<p class="big">${num(b.creditsToday)} <span class="muted">of ${num(caps.maxPerDay)} today</span></p>${gauge(b.creditsToday / caps.maxPerDay, `${num(b.creditsToday)} of ${num(caps.maxPerDay)} credits used today`)}`;
  const run = caps.maxPerRun === undefined ? 'no cap per run' : `at most ${num(caps.maxPerRun)} per run`;
  return `<div class="card"><h3>Credits</h3>${day}<p>${esc(run)}; ${num(b.creditsTotal)} in all</p></div>`;
}

export function budgetStrip(input: BudgetStripInput): string {
  if (input.budgets.length === 0) return '<section aria-label="Budget" class="strip"><p>No budget state yet: nothing has called the API.</p></section>';
  const many = input.budgets.length > 1;
  return input.budgets.map((b) => `<section aria-label="Budget${many ? ` of account ${esc(b.account)}` : ''}" class="strip">${tokensCard(b, input)}${creditsCard(b, input.caps)}</section>`).join('');
}
