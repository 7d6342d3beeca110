import type { Redis } from 'ioredis';
import type { Connection } from 'jsforce';
import { silentLogger, type Logger } from '../../shared/logger.js';
import { RateGovernor, type OutcomeClass } from '../../shared/rate-governor.js';
import { ApiShareGuard } from './api-share-guard.js';
import {
  DAILY_PROBE_AFTER_MS,
  DEFAULT_RETRY,
  outcomeOfFailure,
  withRetry,
  type RetryOptions,
} from './salesforce-call-policy.js';
import { authorize, createSalesforceConnection } from './salesforce-connection.js';
import { SalesforceDailyLimitError } from './salesforce-errors.js';
import { untilAborted } from '../../shared/remote-deadline.js';
import { salesforceGovernorAccount } from './salesforce-governor-account.js';

export interface SalesforceCallerOptions {
  loginUrl: string;
  clientId: string;
  clientSecret: string;
  apiVersion: string;
  /** Never pass this share (0..1] of the org's daily API allowance. */
  maxApiShare: number;
  retry?: Partial<RetryOptions>;
  /** Deadline of one request (login, call, bulk upload, poll, download); default 120 s. */
  requestTimeoutMs?: number;
  /** Where the org's governor keeps its state; without it the share guard reads this process's last header only. */
  redis?: Redis;
  keyPrefix?: string;
  logger?: Logger;
}

/** The governed operation: Salesforce's daily allowance counts every API request alike. */
const SF_OPERATION = 'api';

/**
 * One jsforce connection, the org's governor, the API-share guard, one call policy: every Salesforce call of a sink
 * goes through `call` (auth first, then the governor and the share guard, then the retry policy).
 */
export class SalesforceCaller {
  private readonly conn: Connection;
  private readonly guard: ApiShareGuard;
  private readonly governor: RateGovernor | undefined;
  private readonly retry: RetryOptions;
  private readonly log: Logger;
  private authorized: Promise<void> | undefined;

  constructor(options: SalesforceCallerOptions) {
    this.conn = createSalesforceConnection(options);
    const org = salesforceGovernorAccount(options.loginUrl, options.clientId);
    this.governor = options.redis
      ? new RateGovernor(options.redis, options.keyPrefix ?? 'prospect-sync', 'salesforce', org, {
          untilLearned: 'open',
          closedError: () => new SalesforceDailyLimitError({}),
        })
      : undefined;
    const readUsage = async (): Promise<{ used: number; limit: number } | undefined> => {
      if (!this.governor) return this.conn.limitInfo?.apiUsage;
      const daily = await this.governor.daily(SF_OPERATION);
      return daily ? { used: daily.limit - daily.remaining, limit: daily.limit } : undefined;
    };
    this.guard = new ApiShareGuard(readUsage, options.maxApiShare);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.log = options.logger ?? silentLogger;
  }

  /** The jsforce connection's last `Sforce-Limit-Info` reading. */
  get apiUsage(): { used: number; limit: number } | undefined {
    return this.conn.limitInfo?.apiUsage;
  }

  /**
   * The org id of the token response's identity URL (jsforce keeps it as userInfo.organizationId), after a first grant.
   */
  get organizationId(): string | undefined {
    return this.conn.userInfo?.organizationId;
  }

  /** One API call costing `requests` of the allowance (a bulk job: its fewest); typed errors out. */
  async call<T>(fn: (conn: Connection) => Promise<T>, signal?: AbortSignal, requests = 1): Promise<T> {
    this.authorized ??= authorize(this.conn, this.retry).catch((err: unknown) => {
      this.authorized = undefined;
      throw err;
    });
    await untilAborted(this.authorized, signal);
    try {
      return await withRetry(
        async () => {
          // A used-up daily allowance (REQUEST_LIMIT_EXCEEDED seen by any process) refuses before the share guard.
          await this.governor?.acquire(SF_OPERATION, signal);
          return this.guard.track(requests, () => this.governed(() => fn(this.conn)));
        },
        this.retry,
        signal,
        (attempt, code, delayMs) => {
          this.log.warn({ attempt, code, delayMs }, 'Salesforce call failed; retrying');
        },
      );
    } catch (err) {
      if (err instanceof SalesforceDailyLimitError) await this.governor?.close(SF_OPERATION, DAILY_PROBE_AFTER_MS);
      throw err;
    }
  }

  /** Requests made inside a call that the header has not shown yet (a bulk job's polls), for the share guard. */
  countRequests(n: number): void {
    this.guard.count(n);
  }

  /** A read inside a call retried on its own (a bulk job's status polls and result downloads). */
  retryRead<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return withRetry(read, this.retry, signal);
  }

  /**
   * Counts the call's outcome and shares the Sforce-Limit-Info reading jsforce kept (`conn.limitInfo`) through Redis.
   */
  private async governed<T>(fn: () => Promise<T>): Promise<T> {
    const governor = this.governor;
    if (!governor) return fn();
    const report = async (outcome: OutcomeClass): Promise<void> => {
      const usage = this.conn.limitInfo?.apiUsage;
      await governor.settle(SF_OPERATION, {
        outcome,
        ...(usage ? { daily: { limit: usage.limit, remaining: usage.limit - usage.used } } : {}),
      });
    };
    try {
      const result = await fn();
      // The answer stands whether or not the governor could book it (Redis away or out of memory): what Salesforce
      // took is not sent again, and the run meets Redis's state at its next step.
      await report('2xx').catch(() => undefined);
      return result;
    } catch (err) {
      await report(outcomeOfFailure(err));
      throw err;
    }
  }
}
