import { CrmAuthError, CrmDailyLimitError, CrmUnavailableError } from '../errors.js';
import type { HubSpotRateLimiter } from './hubspot-rate-limiter.js';

/** What the client throws for a non-accepted status (`ApiException`; each API group has its own class, so duck-typed). */
export interface HubSpotApiError {
  code: number;
  body:
    | {
        message?: string;
        category?: string;
        subCategory?: string;
        policyName?: string;
        context?: Record<string, string[]>;
        errors?: { code?: string; message?: string; context?: Record<string, string[]> }[];
      }
    | undefined;
  headers: Record<string, string> | undefined;
}

export function asApiError(err: unknown): HubSpotApiError | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as Partial<HubSpotApiError>;
  if (typeof e.code !== 'number' || e.code < 100) return undefined;
  return { code: e.code, body: (e.body ?? undefined) as HubSpotApiError['body'], headers: e.headers };
}

export type Verdict = 'rate' | 'daily' | 'server' | 'auth' | 'refused';

/**
 * Every HubSpot retry decision. The client drops unknown body fields (`policyName`) on 429, so DAILY is told
 * from the message and the daily-remaining header.
 */
export function classify(err: unknown): Verdict {
  const api = asApiError(err);
  if (api === undefined) return 'server'; // network error, reset connection, timeout: nothing was acknowledged
  if (api.code === 429) {
    const daily = api.body?.policyName === 'DAILY' || /daily/i.test(api.body?.message ?? '') || api.headers?.['x-hubspot-ratelimit-daily-remaining'] === '0';
    return daily ? 'daily' : 'rate';
  }
  if (api.code === 401) return 'auth';
  if (api.code >= 500) return 'server';
  return 'refused';
}

export interface RetryOptions {
  /** Attempts for 5xx / network errors. */
  serverAttempts: number;
  baseDelayMs: number;
  /** 429s on the rolling window are waited out, up to this many times per call. */
  maxThrottles: number;
}

export const DEFAULT_RETRY: RetryOptions = { serverAttempts: 4, baseDelayMs: 500, maxThrottles: 30 };

export interface HttpInfoLike<T> {
  data: T;
  headers: Record<string, string>;
}

/**
 * Runs one HubSpot call through the limiter, retrying 429 (after the window frees up) and 5xx (with backoff).
 * `refused` errors (4xx) are thrown unchanged: the caller (hubspot-caller) types them or lets upsert split.
 */
export async function callHubSpot<T>(
  limiter: HubSpotRateLimiter,
  call: () => Promise<HttpInfoLike<T>>,
  options: RetryOptions & { signal?: AbortSignal; sleep: (ms: number, signal?: AbortSignal) => Promise<void>; onThrottle?: () => void },
): Promise<T> {
  let serverFailures = 0;
  let throttles = 0;
  for (;;) {
    await limiter.acquire(options.signal);
    try {
      const info = await call();
      limiter.release(info.headers);
      return info.data;
    } catch (err) {
      limiter.release(asApiError(err)?.headers);
      const verdict = classify(err);
      if (verdict === 'auth') throw new CrmAuthError('HubSpot', err);
      if (verdict === 'daily') {
        limiter.markDailyExhausted();
        throw new CrmDailyLimitError('HubSpot', { policyName: 'DAILY' });
      }
      if (verdict === 'refused') throw err;
      if (verdict === 'rate') {
        throttles += 1;
        options.onThrottle?.();
        if (throttles > options.maxThrottles) throw new CrmUnavailableError('HubSpot', throttles, '429', err);
        limiter.throttled();
        continue;
      }
      serverFailures += 1;
      const status = String(asApiError(err)?.code ?? 'network');
      if (serverFailures >= options.serverAttempts) throw new CrmUnavailableError('HubSpot', serverFailures, status, err);
      await options.sleep(options.baseDelayMs * 2 ** (serverFailures - 1), options.signal);
    }
  }
}
