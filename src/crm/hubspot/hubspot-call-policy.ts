/**
 * What happens when a HubSpot call fails: read this file top to bottom.
 *
 * Every call first takes a slot from the portal's rate governor (src/shared/rate-governor.ts; one per portal,
 * shared by every run and process through Redis, operation `requests`). The governor starts at the configured
 * `requestsPer10s` (absent: the lowest tier's 100) and learns from every answer's headers: X-HubSpot-RateLimit-Max
 * (the portal's limit, followed both ways as it changes, never above a configured `requestsPer10s`),
 * -Interval-Milliseconds (the window), -Remaining (books what other clients of the app used), and -Daily /
 * -Daily-Remaining (the daily allowance). Then, by answer:
 *
 * - 429 on the rolling window: the governor blocks the portal for every process for Retry-After (or one window
 *   when HubSpot sends none), capped at `maxRetryAfterSeconds`; the call is retried when the governor lets it,
 *   at most `maxThrottles` times; then CrmUnavailableError.
 * - 429 DAILY, or Daily-Remaining 0 on any answer: the governor closes the portal for every process
 *   (probing again after DAILY_PROBE_AFTER_MS); calls fail with CrmDailyLimitError, which stops the run cleanly.
 * - 5xx and no answer (network, or no whole answer within `requestTimeoutMs`: each attempt has that deadline,
 *   combined with the run's AbortSignal, src/shared/remote-deadline.ts): jittered exponential backoff
 *   (src/shared/backoff.ts), at most `serverAttempts` attempts; then CrmUnavailableError. Batch upserts by unique
 *   property are idempotent.
 * - 401: CrmAuthError, never retried.
 * - Other 4xx (refusals): never retried; thrown as they are for the caller to type (hubspot-errors.ts) or to split
 *   a batch (hubspot-upsert.ts).
 */
import { AppError } from '../../shared/app-error.js';
import { backoffDelayMs } from '../../shared/backoff.js';
import { callWithPolicy, type RetryDecision } from '../../shared/call-with-policy.js';
import {
  outcomeClass,
  type AnswerFacts,
  type LearnedLimit,
  type OutcomeClass,
  type RateGovernor,
} from '../../shared/rate-governor.js';
import { callWithDeadline, RemoteTimeoutError } from '../../shared/remote-deadline.js';
import { parseRetryAfter, retryAfterDelayMs } from '../../shared/retry-after.js';
import { CrmAuthError, CrmDailyLimitError, CrmUnavailableError } from '../errors.js';
import { boundedLimit } from './hubspot-limits.js';

/** The governed operation: HubSpot's rolling window and daily allowance count every request of the app alike. */
export const HUBSPOT_OPERATION = 'requests';
/** A used-up daily allowance is probed again after this long (HubSpot resets daily; a worker lives longer). */
export const DAILY_PROBE_AFTER_MS = 10 * 60_000;

export interface RetryOptions {
  /** Attempts for 5xx / network errors, the first one included. */
  serverAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** 429s on the rolling window are waited out, up to this many times per call. */
  maxThrottles: number;
  /** Upper bound of a Retry-After we honour. */
  maxRetryAfterSeconds: number;
}

/** Deadline of one HubSpot request, headers and whole body (config `destinations.*.requestTimeoutMs`). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export const DEFAULT_RETRY: RetryOptions = {
  serverAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxThrottles: 30,
  maxRetryAfterSeconds: 60,
};

/**
 * What the client throws for a non-accepted status (`ApiException`; each API group has its own class, so duck-typed).
 */
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

export type Verdict = 'ours' | 'rate' | 'daily' | 'server' | 'auth' | 'refused';

/**
 * Which row above a failure is. The client drops unknown body fields (`policyName`) on 429, so DAILY is told from
 * the message and the daily-remaining header.
 */
export function classify(err: unknown): Verdict {
  if (err instanceof RemoteTimeoutError) return 'server'; // no answer in time: nothing was acknowledged
  if (err instanceof AppError) return 'ours'; // our typed errors (a closed governor) pass as they are
  const api = asApiError(err);
  if (api === undefined) return 'server'; // network error, reset connection, timeout: nothing was acknowledged
  if (api.code === 429) {
    const daily =
      api.body?.policyName === 'DAILY' ||
      /daily/i.test(api.body?.message ?? '') ||
      api.headers?.['x-hubspot-ratelimit-daily-remaining'] === '0';
    return daily ? 'daily' : 'rate';
  }
  if (api.code === 401) return 'auth';
  if (api.code >= 500) return 'server';
  return 'refused';
}

const headerNumber = (headers: Record<string, string> | undefined, name: string): number | undefined => {
  const raw = headers?.[name];
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(n) ? n : undefined;
};

/**
 * What an answer's X-HubSpot-RateLimit-* headers teach the portal's governor (written by `settle`). The answered Max
 * is the limit, bounded by the configured requests per 10 s (`boundPer10s`, scaled to the answered interval) if any.
 */
export function headerFacts(
  headers: Record<string, string> | undefined,
  boundPer10s: number | undefined,
): Pick<AnswerFacts, 'learned' | 'remaining' | 'daily'> {
  const facts: Pick<AnswerFacts, 'learned' | 'remaining' | 'daily'> = {};
  const interval = headerNumber(headers, 'x-hubspot-ratelimit-interval-milliseconds');
  const max = headerNumber(headers, 'x-hubspot-ratelimit-max');
  if (interval !== undefined && interval > 0 && max !== undefined && max > 0) {
    facts.learned = { limit: boundedLimit(max, interval, boundPer10s), windowMs: interval, mode: 'headers' };
    facts.remaining = headerNumber(headers, 'x-hubspot-ratelimit-remaining');
  }
  const daily = headerNumber(headers, 'x-hubspot-ratelimit-daily');
  const dailyRemaining = headerNumber(headers, 'x-hubspot-ratelimit-daily-remaining');
  if (daily !== undefined && dailyRemaining !== undefined) facts.daily = { limit: daily, remaining: dailyRemaining };
  return facts;
}

/**
 * Books one answer (or a call without one) with the governor in one round trip; closes the portal on Daily-Remaining 0.
 */
async function settleAnswer(
  governor: RateGovernor,
  outcome: OutcomeClass,
  grant: string,
  headers: Record<string, string> | undefined,
  options: PolicyLimits,
): Promise<void> {
  const facts = headerFacts(headers, options.boundPer10s);
  await governor.settle(HUBSPOT_OPERATION, { outcome, grant, ...facts });
  if (facts.learned !== undefined) options.onLearned?.(facts.learned);
  if (headerNumber(headers, 'x-hubspot-ratelimit-daily-remaining') === 0)
    await governor.close(HUBSPOT_OPERATION, DAILY_PROBE_AFTER_MS);
}

/** The portal's limit as the config bounds it, and who hears what each answer taught (the sink's live ceiling). */
export interface PolicyLimits {
  /** The configured `requestsPer10s`: an upper bound of the learned limit; undefined: none. */
  boundPer10s: number | undefined;
  onLearned?: (learned: LearnedLimit) => void;
}

export interface HttpInfoLike<T> {
  data: T;
  headers: Record<string, string>;
}

/**
 * Runs one HubSpot call under the policy above. Refusals (4xx) are thrown unchanged; everything else that
 * surfaces is typed.
 */
export async function callHubSpot<T>(
  governor: RateGovernor,
  call: (signal: AbortSignal) => Promise<HttpInfoLike<T>>,
  options: RetryOptions & PolicyLimits & { requestTimeoutMs?: number; signal?: AbortSignal; onThrottle?: () => void },
): Promise<T> {
  const decide = async (err: unknown, tally: { add(kind: string): number }): Promise<RetryDecision> => {
    const verdict = classify(err);
    if (verdict === 'ours' || verdict === 'refused') return { retry: false };
    if (verdict === 'auth') return { retry: false, error: new CrmAuthError('HubSpot', err) };
    if (verdict === 'daily') {
      await governor.close(HUBSPOT_OPERATION, DAILY_PROBE_AFTER_MS);
      return { retry: false, error: new CrmDailyLimitError('HubSpot', { policyName: 'DAILY' }) };
    }
    if (verdict === 'rate') {
      options.onThrottle?.();
      const throttles = tally.add('throttle');
      if (throttles > options.maxThrottles)
        return { retry: false, error: new CrmUnavailableError('HubSpot', throttles, '429', err) };
      const api = asApiError(err);
      const windowMs = (await governor.current(HUBSPOT_OPERATION))?.windowMs ?? 10_000;
      const seconds = parseRetryAfter(api?.headers?.['retry-after']) ?? windowMs / 1000;
      await governor.block(HUBSPOT_OPERATION, Math.min(seconds, options.maxRetryAfterSeconds) * 1000);
      // The governor holds every process until the block ends; this wait only adds the jitter on top.
      return { retry: true, kind: 'throttle', delayMs: retryAfterDelayMs(0, 0) };
    }
    const failures = tally.add('server');
    const status = err instanceof RemoteTimeoutError ? 'timeout' : String(asApiError(err)?.code ?? 'network');
    if (failures >= options.serverAttempts)
      return { retry: false, error: new CrmUnavailableError('HubSpot', failures, status, err) };
    return { retry: true, kind: 'server', delayMs: backoffDelayMs(failures, options) };
  };

  return callWithPolicy(
    decide,
    async () => {
      const grant = await governor.acquire(HUBSPOT_OPERATION, options.signal);
      try {
        const info = await callWithDeadline(
          'HubSpot',
          options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
          call,
          options.signal,
        );
        // The answer stands whether or not the governor could book it (Redis away or out of memory): what HubSpot
        // took is not sent again, and the run meets Redis's state at its next step.
        await settleAnswer(governor, '2xx', grant, info.headers, options).catch(() => undefined);
        return info.data;
      } catch (err) {
        const api = asApiError(err);
        await settleAnswer(governor, outcomeClass(api?.code), grant, api?.headers, options);
        throw err;
      }
    },
    options.signal,
  );
}
