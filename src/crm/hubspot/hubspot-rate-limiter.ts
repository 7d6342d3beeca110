import { CrmDailyLimitError } from '../errors.js';

export interface RateLimiterOptions {
  /** Requests per window we allow ourselves (the private app's limit). Lowered, never raised, by the -Max header. */
  perWindow: number;
  windowMs?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const DAILY_PROBE_AFTER_MS = 10 * 60_000;

const header = (headers: Record<string, string> | undefined, name: string): number | undefined => {
  const raw = headers?.[name];
  const n = raw === undefined ? Number.NaN : Number(raw);
  return Number.isFinite(n) ? n : undefined;
};

/**
 * Client side of HubSpot's rolling window. A request holds a slot from when it is sent until its answer arrived
 * plus the window: counting from the answer (not the send) keeps us under the server's count, which starts at
 * arrival. The X-HubSpot-RateLimit-* headers of every answer correct the picture when other clients share the app.
 */
export class HubSpotRateLimiter {
  private stamps: number[] = [];
  private inFlight = 0;
  private blockedUntil = 0;
  /** Daily allowance used up: refuse calls until then (a long-lived worker probes again later, HubSpot resets daily). */
  private dailyBlockedUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  private perWindow: number;
  private windowMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(private readonly options: RateLimiterOptions) {
    this.perWindow = options.perWindow;
    this.windowMs = options.windowMs ?? 10_000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? sleepFor;
  }

  /** Waits for a slot; callers queue in order so parallel writers share the window fairly. */
  acquire(signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.waitForSlot(signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async waitForSlot(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      if (now < this.dailyBlockedUntil) throw new CrmDailyLimitError('HubSpot', { dailyRemaining: 0 });
      this.prune(now);
      if (now < this.blockedUntil) {
        await this.sleep(this.blockedUntil - now, signal);
      } else if (this.stamps.length + this.inFlight < this.perWindow) {
        this.inFlight += 1;
        return;
      } else if (this.stamps.length > 0) {
        await this.sleep(Math.max(1, (this.stamps[0] ?? now) + this.windowMs - now + 1), signal);
      } else {
        await this.sleep(10, signal);
      }
    }
  }

  private prune(now: number): void {
    const from = now - this.windowMs;
    let drop = 0;
    while (drop < this.stamps.length && (this.stamps[drop] ?? 0) <= from) drop += 1;
    if (drop > 0) this.stamps.splice(0, drop);
  }

  /** Every answer (success or error) ends a request: record it and learn from its headers. */
  release(headers: Record<string, string> | undefined): void {
    const now = this.now();
    this.inFlight = Math.max(0, this.inFlight - 1);
    this.stamps.push(now);
    const interval = header(headers, 'x-hubspot-ratelimit-interval-milliseconds');
    if (interval !== undefined && interval > 0) this.windowMs = interval;
    const max = header(headers, 'x-hubspot-ratelimit-max');
    if (max !== undefined && max > 0) this.perWindow = Math.min(this.options.perWindow, max);
    const remaining = header(headers, 'x-hubspot-ratelimit-remaining');
    if (remaining !== undefined) {
      // Others using the same app: the server counts more than we do, so book their share as used now.
      const serverUsed = (max ?? this.perWindow) - remaining;
      this.prune(now);
      while (this.stamps.length + this.inFlight < serverUsed) this.stamps.push(now);
    }
    if (header(headers, 'x-hubspot-ratelimit-daily-remaining') === 0) this.markDailyExhausted();
  }

  /** A 429 on the rolling window: nothing more until the oldest request we know of has aged out. */
  throttled(): void {
    const now = this.now();
    this.prune(now);
    this.blockedUntil = Math.max(this.blockedUntil, (this.stamps[0] ?? now) + this.windowMs + 1, now + 100);
  }

  markDailyExhausted(): void {
    this.dailyBlockedUntil = this.now() + DAILY_PROBE_AFTER_MS;
  }
}
