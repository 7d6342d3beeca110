/**
 * Sends one logical API request: governor slot, bearer token, HTTP, header bookkeeping and typed error per
 * attempt; whether and when to try again is src/source/call-policy.ts, run by src/shared/call-with-policy.ts.
 */
import { callWithPolicy } from '../shared/call-with-policy.js';
import type { ChainableCommander } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import { outcomeClass, type Alongside } from '../shared/rate-governor.js';
import type { RedisBudgetLedger } from './budget-ledger.js';
import { mapErrorResponse, sourceDecider, type RetryOptions } from './call-policy.js';
import { outcomeUnknown, RateLimitedError, SourceError } from './errors.js';
import type { HttpResponse, HttpTransport } from './http-transport.js';
import { windowEndsInMs, type ApiGovernor } from './rate-limit-headers.js';
import type { SearchTimings } from './search-timings.js';
import type { TokenProvider } from './token-provider.js';
import type { Operation } from './api-terms.js';

export interface SourceStats {
  requests: { search: number; count: number; dictionary: number; token: number; other: number };
  /** 429 responses received. */
  throttled: number;
  retries: number;
  unauthorizedRetries: number;
  tokensSpent: number;
  creditsSpent: number;
  recordsReturned: number;
  duplicatesDropped: number;
  journeyRestarts: number;
  /** Persons whose contacts were paid for (reveal-once journeys). */
  personsRevealed: number;
  /** Persons passed by without a reveal: revealed before and still fresh. */
  revealSkipped: number;
  /** Unrevealed persons left unrevealed because the API refused a re-sent cursor. */
  revealMissed: number;
  /** Journeys that fell back to revealing whole pages (the API refused a re-sent cursor). */
  revealFallbacks: number;
  /** Persons dropped as suppressed (`suppress:`): never written; those known before their reveal not revealed. */
  suppressed: number;
  /** Journeys whose reveal by offset answered other persons than the walk (they position cursors instead). */
  revealOffsetMismatches: number;
  /** Dry runs: persons a real run would reveal (one credit each), from the reveal store. */
  revealForecast: number;
  /** Dry runs: persons a real run would pass by (revealed before and still fresh). */
  revealForecastSkipped: number;
}

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
  /**
   * Called with the Redis batch that books a 2xx answer (the governor's and the ledger's bookkeeping, one round
   * trip), to append the caller's own (a page's token reservation released).
   */
  onAnswered?: (batch: ChainableCommander) => void;
  /**
   * Sent with each attempt's governor grant, in its Redis round trip: a page's token reservation (it appends nothing
   * while it holds one, e.g. on a retry after a 429).
   */
  withGrant?: Alongside;
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
    revealOffsetMismatches: 0,
    revealForecast: 0,
    revealForecastSkipped: 0,
    suppressed: 0,
  };
}

export class RequestExecutor {
  constructor(
    private readonly http: HttpTransport,
    private readonly tokens: TokenProvider,
    private readonly governor: ApiGovernor,
    private readonly ledger: RedisBudgetLedger,
    private readonly retry: RetryOptions,
    private readonly stats: SourceStats,
    private readonly logger: Logger,
    /** Latency and governor wait of search requests, read by the run's concurrency control. */
    private readonly timings?: SearchTimings,
  ) {}

  /** Returns the 2xx response; throws the typed error once the call policy gives up. */
  async execute(req: ApiRequest): Promise<HttpResponse> {
    const decide = sourceDecider(req.operation, this.retry, {
      blockOperation: (op, ms) => this.governor.block(op, ms),
      onOutcomeUnknown: async (error, retrying) => {
        if (req.onOutcomeUnknown && outcomeUnknown(error)) await req.onOutcomeUnknown(retrying);
      },
    });
    return callWithPolicy(
      async (error, tally) => {
        const decision = await decide(error, tally);
        if (decision.retry && decision.kind === 'token_refresh') this.stats.unauthorizedRetries += 1;
        else if (decision.retry) {
          this.stats.retries += 1;
          const code = error instanceof SourceError ? error.code : 'error';
          this.logger.warn(
            { code, operation: req.operation, delayMs: decision.delayMs, path: req.url.pathname },
            'source request failed; retrying',
          );
        }
        return decision;
      },
      () => this.attempt(req),
      req.signal,
    );
  }

  private async attempt(req: ApiRequest): Promise<HttpResponse> {
    const asked = performance.now();
    const grant = req.operation ? await this.governor.acquire(req.operation, req.signal, req.withGrant) : undefined;
    const granted = performance.now();
    // Taken once the slot is granted: however long the queue, the token sent is outside its refresh margin.
    const token = await this.bearer(req.operation, grant, req.signal);
    const sent = performance.now();
    this.stats.requests[req.operation ?? 'other'] += 1;
    let res: HttpResponse;
    try {
      res = await this.http.send({
        method: req.method,
        url: req.url,
        headers: {
          authorization: `Bearer ${token.value}`,
          accept: 'application/json',
          ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: req.body,
        signal: req.signal,
      });
    } catch (error) {
      // No answer: free the probe slot so other processes need not wait for it to expire.
      if (req.operation) await this.governor.settle(req.operation, { outcome: 'network', grant, releaseProbe: true });
      throw error;
    }
    const ok = res.status >= 200 && res.status < 300;
    const op = req.operation;
    if (op === 'search') this.timings?.record(granted - asked, performance.now() - sent);
    else if (op === 'count') this.timings?.recordCount(performance.now() - sent);
    if (op) {
      // Governor (count, restamp, limit), token balance and the caller's release: one Redis round trip.
      const learned = await this.governor.learnedFrom(op, res.headers);
      await this.governor.settle(
        op,
        { outcome: outcomeClass(res.status), grant, learned, windowEndsInMs: windowEndsInMs(res.headers) },
        (batch) => {
          if (op === 'search') this.ledger.observeTokensInto(batch, res.headers);
          if (ok) req.onAnswered?.(batch);
        },
      );
    }
    if (ok) return res;
    if (res.status === 401) this.tokens.invalidate(token.value);
    const error = mapErrorResponse(res.status, res.headers, res.body, req.operation, token.fresh);
    if (error instanceof RateLimitedError) this.stats.throttled += 1;
    throw error;
  }

  /** The access token for a granted request; the grant is given back when no token comes (nothing is sent). */
  private async bearer(op: Operation | undefined, grant: string | undefined, signal?: AbortSignal) {
    const before = this.tokens.requests;
    try {
      return await this.tokens.take(signal);
    } catch (error) {
      if (op && grant) await this.governor.cancel(op, grant);
      throw error;
    } finally {
      this.stats.requests.token += this.tokens.requests - before;
    }
  }
}
