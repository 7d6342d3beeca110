/**
 * The table of run endings (jobs/sync-search/run-outcome.ts), one row at a time: status, stop reason, the
 * checkpoint's fate and a delayed run's resume time. The runs that end each way are in run-outcome.test.ts and
 * the other jobs tests; these check the decision alone.
 */
import { describe, expect, it } from 'vitest';
import type { RunPlan } from '../../jobs/sync-search/plan-run.js';
import { CrmRefusedError } from '../../jobs/sync-search/refusal-errors.js';
import {
  outcomeFacts,
  refusalOf,
  runOutcome,
  walkEnding,
  type OutcomeFacts,
  type RunEnding,
} from '../../jobs/sync-search/run-outcome.js';
import type { AppConfig } from '../../src/config/index.js';
import { DEFAULT_CHECKPOINT_TTL_MS, type RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import { emptyCounts } from '../../src/runs/run-counters.js';
import { BudgetStopError, TokensExhaustedError, type TokenBalance } from '../../src/source/index.js';

const HOUR = 3_600_000;

/** An account with this reserve whose last known balance resets at `resetAt` (null: no balance seen). */
const facts = (tokenReserve: number, resetAt: number | null = null): OutcomeFacts => ({
  tokenReserve,
  tokenBalance: async () => (resetAt === null ? null : { limit: 1000, remaining: 0, resetAt, observedAt: Date.now() }),
});

const plan = (over: Partial<RunPlan> = {}): RunPlan =>
  ({
    quota: null,
    tokensNeeded: 900,
    tokensSpendable: 400,
    creditsNeeded: 300,
    creditsSpendable: 120,
    ...over,
  }) as RunPlan;

const checkpoint = (partitions: boolean[], unique = 0, complete?: boolean): RunCheckpoint => ({
  runId: 'r',
  startedAt: '',
  counted: 0,
  counts: { ...emptyCounts(), unique },
  partitions: partitions.map((done) => ({ filter: {}, state: null, done })),
  ...(complete === undefined ? {} : { plan: { complete, pending: [], countsLeft: 0 } }),
});

const walked = (aborted = false, capped = false): RunEnding => ({ kind: 'walked', aborted, capped });
const threw = (error: unknown, aborted = false): RunEnding => ({ kind: 'threw', error, aborted });

describe('how a walk ended, from its checkpoint', () => {
  it('stopped with partitions left, or a split cut short, is aborted; with all walked it is not', () => {
    expect(walkEnding(plan(), { checkpoint: checkpoint([true, false]) }, true)).toEqual(walked(true));
    expect(walkEnding(plan(), { checkpoint: checkpoint([true, true], 0, false) }, true)).toEqual(walked(true));
    expect(walkEnding(plan(), { checkpoint: checkpoint([true, true], 0, true) }, true)).toEqual(walked(false));
    expect(walkEnding(plan(), { checkpoint: checkpoint([true, true]) }, true)).toEqual(walked(false));
    expect(walkEnding(plan(), { checkpoint: checkpoint([true, false]) }, false)).toEqual(walked(false));
    // no checkpoint (nothing began): as the walk said, never capped
    expect(walkEnding(plan({ quota: 0 }), { checkpoint: undefined }, true)).toEqual(walked(true));
  });

  it('capped once the distinct records kept reach the quota, not before, never without one', () => {
    expect(walkEnding(plan({ quota: 10 }), { checkpoint: checkpoint([true], 10) }, false)).toEqual(walked(false, true));
    expect(walkEnding(plan({ quota: 10 }), { checkpoint: checkpoint([true], 9) }, false)).toEqual(walked(false));
    expect(walkEnding(plan(), { checkpoint: checkpoint([true], 10_000) }, false)).toEqual(walked(false));
  });
});

describe('a refused plan', () => {
  it('is refused only with a shortfall, onShortfall: refuse, and a run not resumed', () => {
    const short = plan({ shortfall: 'tokens' });
    expect(refusalOf(short, 'refuse', false)).toEqual({ kind: 'refused', plan: short });
    expect(refusalOf(short, 'stop', false)).toBeNull();
    expect(refusalOf(short, 'refuse', true)).toBeNull();
    expect(refusalOf(plan(), 'refuse', false)).toBeNull();
  });

  it('ends partial naming the binding cap and what was short; its checkpoint is kept', async () => {
    const tokens = await runOutcome({ kind: 'refused', plan: plan({ shortfall: 'tokens' }) }, facts(0), 's');
    expect(tokens).toEqual({
      status: 'partial',
      stopReason: 'token_reserve',
      error: {
        code: 'budget_insufficient',
        message:
          'the run needs 900 search tokens but only 400 may be spent; nothing was fetched (onShortfall: refuse; ' +
          'set onShortfall: stop to spend up to the cap and stop there)',
      },
      checkpoint: { keep: true },
    });
    const credits = await runOutcome(
      { kind: 'refused', plan: plan({ shortfall: 'credits', bindingCap: 'credit_cap_day' }) },
      facts(0),
      's',
    );
    expect(credits).toMatchObject({ status: 'partial', stopReason: 'credit_cap_day' });
    expect(credits.error?.message).toMatch(/^the run needs 300 credits but only 120 may be spent;/);
  });

  it('with not one token spendable it is the ledger stop: a delay to the reset without a reserve', async () => {
    const reset = Date.now() + 2 * HOUR;
    const none = { kind: 'refused', plan: plan({ shortfall: 'tokens', tokensSpendable: 0 }) } as const;
    const delayed = await runOutcome(none, facts(0, reset), 's');
    expect(delayed).toMatchObject({
      status: 'delayed',
      stopReason: 'tokens_exhausted',
      resumeAt: new Date(reset).toISOString(),
      error: { code: 'budget_cap_reached', message: 'no search tokens may be spent until the budget resets' },
    });
    expect(await runOutcome(none, facts(50, reset), 's')).toEqual({
      status: 'partial',
      stopReason: 'token_reserve',
      error: { code: 'budget_cap_reached', message: 'no search tokens may be spent until the budget resets' },
      checkpoint: { keep: false },
    });
  });
});

describe('a walk that returned', () => {
  it('completed clears the checkpoint; at the record cap it is completed and limited by the cap named', async () => {
    expect(await runOutcome(walked(), facts(0), 's')).toEqual({ status: 'completed', checkpoint: { keep: false } });
    expect(await runOutcome(walked(false, true), facts(0), 's')).toEqual({
      status: 'completed',
      limitedBy: 'max_records',
      checkpoint: { keep: false },
    });
    expect(await runOutcome(walked(false, true), facts(0), 's', 'sample')).toMatchObject({ limitedBy: 'sample' });
  });

  it('stopped from outside fails as aborted, naming the search, and keeps its checkpoint', async () => {
    const expected = {
      status: 'failed',
      stopReason: 'aborted',
      error: {
        code: 'run_aborted',
        message: "the run of 'leads' was stopped before its end; it resumes from its checkpoint",
      },
      checkpoint: { keep: true },
    };
    expect(await runOutcome(walked(true, true), facts(0), 'leads')).toEqual(expected);
    expect(await runOutcome(threw(new Error('socket closed'), true), facts(0), 'leads')).toEqual(expected);
  });
});

describe('a walk that threw', () => {
  it('a journey finding the shared record cap used up: the run has its records, limited', async () => {
    const cap = new BudgetStopError('max_records', 'the run holds its 500 records');
    expect(await runOutcome(threw(cap), facts(0), 's')).toEqual({
      status: 'completed',
      limitedBy: 'max_records',
      checkpoint: { keep: false },
    });
    // stopped from outside at the same time: a budget stop of that cap (partial), not a completed run
    expect(await runOutcome(threw(cap, true), facts(0), 's')).toMatchObject({
      status: 'partial',
      stopReason: 'max_records',
    });
  });

  it('a cap of ours ends partial naming it, checkpoint cleared, also when stopped from outside', async () => {
    const credits = new BudgetStopError('credit_cap_run', 'the run spent its 250 credits');
    const expected = {
      status: 'partial',
      stopReason: 'credit_cap_run',
      error: { code: 'budget_cap_reached', message: 'the run spent its 250 credits' },
      checkpoint: { keep: false },
    };
    expect(await runOutcome(threw(credits), facts(0, Date.now() + HOUR), 's')).toEqual(expected);
    expect(await runOutcome(threw(credits, true), facts(0), 's')).toEqual(expected);
  });

  it('the reserve reached: a delay only with no reserve and a reset still ahead, else partial', async () => {
    const reserve = new BudgetStopError('token_reserve', 'the balance reached the reserve (0)');
    const ahead = Date.now() + 3 * HOUR;
    expect(await runOutcome(threw(reserve), facts(0, ahead), 's')).toMatchObject({
      status: 'delayed',
      resumeAt: new Date(ahead).toISOString(),
      checkpoint: { keep: true },
    });
    for (const f of [facts(10, ahead), facts(0, null), facts(0, Date.now() - 1_000)])
      expect(await runOutcome(threw(reserve), f, 's')).toMatchObject({
        status: 'partial',
        stopReason: 'token_reserve',
        checkpoint: { keep: false },
      });
  });

  it('tokens exhausted (402): delayed to the reset, the checkpoint kept an hour past it, 6 h to 48 h', async () => {
    const at = async (seconds: number) => {
      const error = new TokensExhaustedError(seconds, 'search tokens exhausted');
      const outcome = await runOutcome(threw(error), facts(50), 's');
      expect(outcome).toMatchObject({
        status: 'delayed',
        stopReason: 'tokens_exhausted',
        resumeAt: error.resetAt.toISOString(),
        error: { code: 'tokens_exhausted', message: 'search tokens exhausted' },
      });
      return outcome.checkpoint.keep ? outcome.checkpoint.ttlMs : undefined;
    };
    expect(await at(60)).toBe(DEFAULT_CHECKPOINT_TTL_MS);
    const ten = (await at(10 * 3600)) ?? 0;
    expect(ten).toBeGreaterThan(11 * HOUR - 5_000);
    expect(ten).toBeLessThanOrEqual(11 * HOUR);
    expect(await at(100 * 3600)).toBe(48 * HOUR);
    // a reset already passed: resumes at once, kept for the store's time
    expect(await at(-60)).toBe(DEFAULT_CHECKPOINT_TTL_MS);
  });

  it('the CRM refusing the run fails it and clears the checkpoint; any other error keeps it for a retry', async () => {
    const refused = new CrmRefusedError('crm_refused_all', 'the CRM refused each of the first 200', undefined);
    expect(await runOutcome(threw(refused), facts(0), 's')).toEqual({
      status: 'failed',
      error: { code: 'crm_refused_all', message: 'the CRM refused each of the first 200' },
      checkpoint: { keep: false },
    });
    expect(await runOutcome(threw(new Error('boom')), facts(0), 's')).toEqual({
      status: 'failed',
      error: { code: 'internal_error', message: 'boom' },
      checkpoint: { keep: true },
    });
  });
});

describe('the facts of a config', () => {
  it('are its token reserve and the ledger’s balance', async () => {
    const balance: TokenBalance = { limit: 1, remaining: 0, resetAt: 5, observedAt: 4 };
    const f = outcomeFacts({ source: { tokens: { reserve: 25 } } } as AppConfig, { tokenBalance: async () => balance });
    expect(f.tokenReserve).toBe(25);
    expect(await f.tokenBalance()).toBe(balance);
  });
});
