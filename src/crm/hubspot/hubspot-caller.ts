import type { Client } from '@hubspot/api-client';
import { AppError } from '../../shared/app-error.js';
import { refusalError, type CallContext } from './hubspot-errors.js';
import type { RateGovernor } from '../../shared/rate-governor.js';
import {
  asApiError,
  callHubSpot,
  DEFAULT_RETRY,
  type HttpInfoLike,
  type HubSpotApiError,
  type PolicyLimits,
  type RetryOptions,
} from './hubspot-call-policy.js';

/** One request; `signal` aborts it at its deadline or when the run stops (a typed API call cannot take it). */
export type HubSpotRequest<T> = (client: Client, signal: AbortSignal) => Promise<HttpInfoLike<T>>;

/**
 * One client, the portal's governor, one call policy: every HubSpot call of a sink goes through `call` or `attempt`.
 */
export interface HubSpotCaller {
  /**
   * Any failure comes out typed (CrmAuthError, CrmSchemaError, CrmRequestError, CrmUnavailableError,
   * CrmDailyLimitError).
   */
  call<T>(fn: HubSpotRequest<T>, at: CallContext, signal?: AbortSignal): Promise<T>;
  /** Like `call`, but a refusal (4xx but 401/429) is returned for the caller to judge (batch upsert splits). */
  attempt<T>(fn: HubSpotRequest<T>, signal?: AbortSignal): Promise<{ data: T } | { refusal: HubSpotApiError }>;
  readonly throttled: number;
}

/** callHubSpot lets only refusals out untyped (our errors and abort reasons pass as they are). */
function refusalOf(err: unknown): HubSpotApiError | undefined {
  return err instanceof AppError ? undefined : asApiError(err);
}

export function createHubSpotCaller(
  client: Client,
  governor: RateGovernor,
  options: { limits: PolicyLimits; requestTimeoutMs?: number; retry?: Partial<RetryOptions> },
): HubSpotCaller {
  const retry = {
    ...DEFAULT_RETRY,
    ...options.retry,
    ...options.limits,
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  };
  let throttled = 0;
  const run = <T>(fn: HubSpotRequest<T>, signal?: AbortSignal): Promise<T> =>
    callHubSpot(governor, (attemptSignal) => fn(client, attemptSignal), {
      ...retry,
      ...(signal ? { signal } : {}),
      onThrottle: () => (throttled += 1),
    });
  return {
    async call(fn, at, signal) {
      try {
        return await run(fn, signal);
      } catch (err) {
        const refusal = refusalOf(err);
        throw refusal === undefined ? err : refusalError(refusal, at);
      }
    },
    async attempt(fn, signal) {
      try {
        return { data: await run(fn, signal) };
      } catch (err) {
        const refusal = refusalOf(err);
        if (refusal === undefined) throw err;
        return { refusal };
      }
    },
    get throttled() {
      return throttled;
    },
  };
}
