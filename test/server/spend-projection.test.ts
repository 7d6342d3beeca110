import { describe, expect, it } from 'vitest';
import { projectTokenSpend } from '../../src/server/spend-projection.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-25T12:00:00Z');
const run = (daysAgo: number, tokensSpent: number): { finishedAt: string; tokensSpent: number } => ({ finishedAt: new Date(NOW - daysAgo * DAY).toISOString(), tokensSpent });

describe('projectTokenSpend', () => {
  it('carries the last days\' pace on to the reset', () => {
    const p = projectTokenSpend([run(4, 400), run(2, 400), run(0.5, 400)], { remaining: 10_000, resetAt: NOW + 10 * DAY }, NOW);
    expect(p?.perDay).toBe(300);
    expect(p?.untilReset).toBe(3_000);
    expect(p?.leftAtReset).toBe(7_000);
    expect(p?.exhaustedAt).toBeUndefined();
  });

  it('says when the allotment runs out before the reset', () => {
    const p = projectTokenSpend([run(2, 1_000), run(1, 1_000)], { remaining: 1_500, resetAt: NOW + 10 * DAY }, NOW);
    expect(p?.perDay).toBe(1_000);
    expect(p?.leftAtReset).toBe(-8_500);
    expect(p?.exhaustedAt).toBe(NOW + 1.5 * DAY);
  });

  it('reads one busy hour as at least a day, ignores runs outside the window, and has no pace without runs', () => {
    expect(projectTokenSpend([run(1 / 24, 500)], { remaining: 1_000, resetAt: NOW + DAY }, NOW)?.perDay).toBe(500);
    expect(projectTokenSpend([run(30, 9_999), run(1, 100)], { remaining: 1_000, resetAt: NOW + DAY }, NOW)?.perDay).toBe(100);
    expect(projectTokenSpend([run(30, 9_999)], { remaining: 1_000, resetAt: NOW + DAY }, NOW)).toBeUndefined();
  });
});
