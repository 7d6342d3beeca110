import { describe, expect, it } from 'vitest';
import { prefetch } from '../../jobs/sync-search/prefetch.js';
import { errorInfo } from '../../jobs/sync-search/run-errors.js';
import type { RunPlan } from '../../jobs/sync-search/plan-run.js';
import { refusalOf, runOutcome, type OutcomeFacts } from '../../jobs/sync-search/run-outcome.js';
import { BudgetStopError, TokensExhaustedError } from '../../src/source/index.js';
import { renderProgress } from '../../src/runs/progress-bar.js';
import { AppError } from '../../src/shared/app-error.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('prefetch (page n+1 fetched while page n is written)', () => {
  it('overlaps producing with consuming and keeps order', async () => {
    const log: string[] = [];
    async function* pages(): AsyncGenerator<number> {
      for (let i = 1; i <= 3; i++) {
        log.push(`fetch ${i} start`);
        await sleep(20);
        log.push(`fetch ${i} end`);
        yield i;
      }
    }
    const seen: number[] = [];
    for await (const n of prefetch(pages(), 1)) {
      log.push(`write ${n} start`);
      await sleep(20);
      log.push(`write ${n} end`);
      seen.push(n);
    }
    expect(seen).toEqual([1, 2, 3]);
    // fetch 2 starts while write 1 is under way
    // fetch 2 starts while write 1 is under way, and fetch 3 while write 2 is (order, not wall time: the machine may be
    // loaded)
    expect(log.indexOf('fetch 2 start')).toBeLessThan(log.indexOf('write 1 end'));
    expect(log.indexOf('fetch 3 start')).toBeLessThan(log.indexOf('write 2 end'));
  });

  it('surfaces a producer error after the items before it, and stops pulling when the consumer breaks', async () => {
    let pulled = 0;
    async function* failing(): AsyncGenerator<number> {
      pulled++;
      yield 1;
      pulled++;
      throw new Error('page 2 failed');
    }
    const seen: number[] = [];
    await expect(async () => {
      for await (const n of prefetch(failing(), 1)) seen.push(n);
    }).rejects.toThrow('page 2 failed');
    expect(seen).toEqual([1]);

    pulled = 0;
    async function* endless(): AsyncGenerator<number> {
      for (let i = 0; ; i++) {
        pulled++;
        yield i;
      }
    }
    for await (const n of prefetch(endless(), 1)) if (n === 2) break;
    expect(pulled).toBeLessThanOrEqual(4);
  });
});

describe('error info and progress line', () => {
  it('masks contact details a remote echoed in an error message', () => {
    const info = errorInfo(
      new AppError('crm_request_failed', 'invalid email jane.doe@acme.example for +49 30 1234567'),
    );
    expect(info.code).toBe('crm_request_failed');
    expect(info.message).not.toContain('jane.doe');
    expect(info.message).not.toContain('1234567');
    expect(errorInfo(new Error('boom')).code).toBe('internal_error');
  });

  it('renders records, tokens, credits and an ETA', () => {
    const line = renderProgress({ fetched: 250, target: 1000, tokensSpent: 250, creditsSpent: 10, elapsedMs: 10_000 });
    expect(line).toContain('250/1000 records');
    expect(line).toContain('tokens 250');
    expect(line).toContain('credits 10');
    expect(line).toContain('ETA 30s');
  });
});

describe('run outcome (how a run ends, from its ending)', () => {
  const plan = {
    quota: null,
    tokensSpendable: 10,
    tokensNeeded: 50,
    creditsNeeded: 0,
    creditsSpendable: null,
    shortfall: 'tokens',
    bindingCap: 'token_reserve',
  } as unknown as RunPlan;
  const facts = (reserve: number, resetInMs: number | null): OutcomeFacts => ({
    tokenReserve: reserve,
    tokenBalance: async () =>
      resetInMs === null ? null : { limit: 100, remaining: 0, resetAt: Date.now() + resetInMs, observedAt: Date.now() },
  });

  it('walked: completed or max_records (checkpoint cleared); aborted keeps the checkpoint', async () => {
    expect(await runOutcome({ kind: 'walked', aborted: false, capped: false }, facts(0, null), 's')).toEqual({
      status: 'completed',
      checkpoint: { keep: false },
    });
    expect(await runOutcome({ kind: 'walked', aborted: false, capped: true }, facts(0, null), 's')).toMatchObject({
      status: 'completed',
      limitedBy: 'max_records',
      checkpoint: { keep: false },
    });
    expect(await runOutcome({ kind: 'walked', aborted: true, capped: false }, facts(0, null), 's')).toMatchObject({
      status: 'failed',
      stopReason: 'aborted',
      error: { code: 'run_aborted' },
      checkpoint: { keep: true },
    });
  });

  it(
    'a cap of ours is partial naming the cap; tokens at 0 with no reserve is a delay until the reset, checkpoint ' +
      'kept past it',
    async () => {
      const day = await runOutcome(
        { kind: 'threw', error: new BudgetStopError('credit_cap_day', 'x'), aborted: false },
        facts(0, 60_000),
        's',
      );
      expect(day).toMatchObject({
        status: 'partial',
        stopReason: 'credit_cap_day',
        error: { code: 'budget_cap_reached' },
        checkpoint: { keep: false },
      });
      const reserve = await runOutcome(
        { kind: 'threw', error: new BudgetStopError('token_reserve', 'x'), aborted: false },
        facts(100, 60_000),
        's',
      );
      expect(reserve).toMatchObject({ status: 'partial', stopReason: 'token_reserve' });
      const zero = await runOutcome(
        { kind: 'threw', error: new BudgetStopError('token_reserve', 'x'), aborted: false },
        facts(0, 60_000),
        's',
      );
      expect(zero).toMatchObject({ status: 'delayed', stopReason: 'tokens_exhausted', checkpoint: { keep: true } });
      expect(Date.parse(zero.resumeAt ?? '') - Date.now()).toBeGreaterThan(50_000);
      const exhausted = await runOutcome(
        { kind: 'threw', error: new TokensExhaustedError(72 * 3600, 'x'), aborted: true },
        facts(0, null),
        's',
      );
      // a 402 wins over an abort; the checkpoint outlives the delay by an hour, but never more than 48 h
      expect(exhausted).toMatchObject({
        status: 'delayed',
        stopReason: 'tokens_exhausted',
        checkpoint: { keep: true, ttlMs: 48 * 3600_000 },
      });
    },
  );

  it(
    'refused by the plan: partial with the binding cap, nothing spent; with no token spendable at all it is the ' +
      'ledger stop',
    async () => {
      expect(await runOutcome({ kind: 'refused', plan }, facts(0, null), 's')).toMatchObject({
        status: 'partial',
        stopReason: 'token_reserve',
        error: { code: 'budget_insufficient' },
      });
      const day = {
        ...plan,
        shortfall: 'credits',
        bindingCap: 'credit_cap_day',
        tokensSpendable: null,
        creditsNeeded: 50,
        creditsSpendable: 5,
      } as RunPlan;
      expect(await runOutcome({ kind: 'refused', plan: day }, facts(0, null), 's')).toMatchObject({
        stopReason: 'credit_cap_day',
      });
      expect(
        await runOutcome({ kind: 'refused', plan: { ...plan, tokensSpendable: 0 } }, facts(0, 30_000), 's'),
      ).toMatchObject({ status: 'delayed' });
      expect(refusalOf(plan, 'stop', false)).toBeNull();
      expect(refusalOf(plan, 'refuse', true)).toBeNull();
      expect(refusalOf(plan, 'refuse', false)).toEqual({ kind: 'refused', plan });
    },
  );

  it('anything else fails, keeping the checkpoint for the retry; an abort is reported as such', async () => {
    expect(
      await runOutcome({ kind: 'threw', error: new Error('boom'), aborted: false }, facts(0, null), 's'),
    ).toMatchObject({
      status: 'failed',
      error: { code: 'internal_error', message: 'boom' },
      checkpoint: { keep: true },
    });
    expect(
      await runOutcome({ kind: 'threw', error: new Error('cut'), aborted: true }, facts(0, null), 's'),
    ).toMatchObject({ status: 'failed', stopReason: 'aborted' });
  });

  it('the last attempt clears what a failure or stop kept; Redis out of memory or away keeps it to go on', async () => {
    const last = { ...facts(0, null), lastAttempt: true };
    const ending = (error: Error, aborted = false) => ({ kind: 'threw' as const, error, aborted });
    expect(await runOutcome(ending(new Error('boom')), last, 's')).toMatchObject({ checkpoint: { keep: false } });
    expect(await runOutcome(ending(new Error('cut'), true), last, 's')).toMatchObject({
      stopReason: 'aborted',
      checkpoint: { keep: false },
    });
    expect(await runOutcome({ kind: 'walked', aborted: true, capped: false }, last, 's')).toMatchObject({
      checkpoint: { keep: false },
    });
    const oom = new Error("OOM command not allowed when used memory > 'maxmemory'.");
    const execAbort = Object.assign(new Error('EXECABORT Transaction discarded'), { previousErrors: [oom] });
    const gone = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    for (const error of [oom, execAbort, gone])
      expect(await runOutcome(ending(error), last, 's')).toMatchObject({
        status: 'failed',
        error: { code: 'redis_unavailable' },
        checkpoint: { keep: true },
      });
  });
});
