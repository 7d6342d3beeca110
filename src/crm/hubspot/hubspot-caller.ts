import type { Client } from '@hubspot/api-client';
import { HubSpotRateLimiter, sleepFor } from './hubspot-rate-limiter.js';
import { callHubSpot, DEFAULT_RETRY, type HttpInfoLike, type RetryOptions } from './hubspot-retry.js';

/** One client, one limiter, one retry policy: every HubSpot call of a sink goes through `call`. */
export interface HubSpotCaller {
  call<T>(fn: (client: Client) => Promise<HttpInfoLike<T>>, signal?: AbortSignal): Promise<T>;
  readonly throttled: number;
}

export function createHubSpotCaller(
  client: Client,
  options: { requestsPer10s: number; retry?: Partial<RetryOptions>; sleep?: (ms: number, signal?: AbortSignal) => Promise<void> },
): HubSpotCaller {
  const sleep = options.sleep ?? sleepFor;
  const limiter = new HubSpotRateLimiter({ perWindow: options.requestsPer10s, sleep });
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  let throttled = 0;
  return {
    call: (fn, signal) => callHubSpot(limiter, () => fn(client), { ...retry, sleep, ...(signal ? { signal } : {}), onThrottle: () => (throttled += 1) }),
    get throttled() {
      return throttled;
    },
  };
}
