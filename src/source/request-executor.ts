/**
 * Sends one logical API request: governor slot, bearer token, HTTP, header bookkeeping, typed error, and the
 * retries `retry-policy.ts` allows. A 401 refreshes the token once and retries once; a second 401 surfaces.
 */
import type { Logger } from '../shared/logger.js';
import { sleep } from './abortable-sleep.js';
import type { RedisBudgetLedger } from './budget-ledger.js';
import { mapErrorResponse } from './error-mapping.js';
import { outcomeUnknown, RateLimitedError, SourceAuthError, SourceError } from './errors.js';
import type { HttpResponse, HttpTransport } from './http-transport.js';
import type { RateGovernor } from './rate-governor.js';
import { decideRetry } from './retry-policy.js';
import type { TokenProvider } from './token-provider.js';
import type { Operation, RetryOptions, SourceStats } from './types.js';

const UNAUTHORIZED = Symbol('unauthorized');

export interface ApiRequest {
  method: 'GET' | 'POST';
  url: URL;
  /** Exact body bytes (journeys keep them identical across pages). */
  body?: string;
  /** Rate-limited operation, or undefined for the health probe. */
  operation: Operation | undefined;
  signal?: AbortSignal;
  /**
   * Called when an attempt got no answer but may have been served (and charged), with whether it will be retried.
   * It books the worst case and, before a retry, reserves again; what it throws replaces the error.
   */
  onOutcomeUnknown?: (retrying: boolean) => Promise<void>;
}

export function emptyStats(): SourceStats {
  return {
    requests: { search: 0, count: 0, dictionary: 0, token: 0, other: 0 },
    throttled: 0,
    retries: 0,
    unauthorizedRetries: 0,
    tokensSpent: 0,
    creditsSpent: 0,
    recordsReturned: 0,
    duplicatesDropped: 0,
    journeyRestarts: 0,
    personsRevealed: 0,
    revealSkipped: 0,
    revealMissed: 0,
    revealFallbacks: 0,
  };
}

export class RequestExecutor {
  constructor(
    private readonly http: HttpTransport,
    private readonly tokens: TokenProvider,
    private readonly governor: RateGovernor,
    private readonly ledger: RedisBudgetLedger,
    private readonly retry: RetryOptions,
    private readonly stats: SourceStats,
    private readonly logger: Logger,
  ) {}

  /** Returns the 2xx response; throws the typed error once retries are spent. */
  async execute(req: ApiRequest): Promise<HttpResponse> {
    const attempts = { failures: 0, throttles: 0 };
    let refreshed = false;
    for (;;) {
      try {
        const res = await this.attempt(req);
        if (res !== UNAUTHORIZED) return res;
        if (refreshed) {
          throw new SourceAuthError('the API refused a freshly issued access token (401 twice); check the account has API access');
        }
        refreshed = true;
        this.stats.unauthorizedRetries += 1;
      } catch (error) {
        if (!(error instanceof SourceError) || error instanceof SourceAuthError) throw error;
        if (error instanceof RateLimitedError) attempts.throttles += 1;
        else attempts.failures += 1;
        const decision = decideRetry(error, attempts, this.retry);
        if (req.onOutcomeUnknown && outcomeUnknown(error)) await req.onOutcomeUnknown(decision.retry);
        if (!decision.retry) throw error;
        this.stats.retries += 1;
        this.logger.warn(
          { code: error.code, operation: req.operation, delayMs: decision.delayMs, path: req.url.pathname },
          'source request failed; retrying',
        );
        await sleep(decision.delayMs, req.signal);
      }
    }
  }

  private async attempt(req: ApiRequest): Promise<HttpResponse | typeof UNAUTHORIZED> {
    const before = this.tokens.requests;
    const token = await this.tokens.get(req.signal);
    this.stats.requests.token += this.tokens.requests - before;
    if (req.operation) await this.governor.acquire(req.operation, req.signal);
    this.stats.requests[req.operation ?? 'other'] += 1;
    let res: HttpResponse;
    try {
      res = await this.http.send({
        method: req.method,
        url: req.url,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: req.body,
        signal: req.signal,
      });
    } catch (error) {
      // No answer: free the probe slot so other processes need not wait for it to expire.
      if (req.operation) await this.governor.release(req.operation);
      throw error;
    }
    if (req.operation) await this.governor.observe(req.operation, res.headers);
    if (req.operation === 'search') await this.ledger.observeTokens(res.headers);
    if (res.status >= 200 && res.status < 300) return res;
    if (res.status === 401) {
      this.tokens.invalidate(token);
      return UNAUTHORIZED;
    }
    const error = mapErrorResponse(res.status, res.headers, res.body, req.operation);
    if (error instanceof RateLimitedError) {
      this.stats.throttled += 1;
      await this.governor.block(error.operation ?? req.operation ?? 'search', Math.min(error.retryAfterSeconds, this.retry.maxRetryAfterSeconds));
    }
    throw error;
  }
}
