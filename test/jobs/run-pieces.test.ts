import { describe, expect, it } from 'vitest';
import { prefetch } from '../../jobs/sync-search/prefetch.js';
import { errorInfo } from '../../jobs/sync-search/run-errors.js';
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
    const t0 = Date.now();
    for await (const n of prefetch(pages(), 1)) {
      log.push(`write ${n} start`);
      await sleep(20);
      log.push(`write ${n} end`);
      seen.push(n);
    }
    expect(seen).toEqual([1, 2, 3]);
    // fetch 2 starts while write 1 is under way
    expect(log.indexOf('fetch 2 start')).toBeLessThan(log.indexOf('write 1 end'));
    expect(Date.now() - t0).toBeLessThan(20 * 6);
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
    const info = errorInfo(new AppError('crm_request_failed', 'invalid email jane.doe@acme.example for +49 30 1234567'));
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
