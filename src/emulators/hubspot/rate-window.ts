/**
 * HubSpot's limits: N requests per rolling window (10 s) and a daily count. Times come from the caller's clock.
 * `perWindow` may be changed at any time (a portal that buys a capacity pack or is downgraded): requests already in
 * the window still count against the new limit.
 */
export class RateWindow {
  private stamps: number[] = [];
  dailyUsed = 0;
  /** Most requests counted in any one window so far (`resetPeak` starts again, e.g. after a limit change). */
  peak = 0;

  constructor(
    public perWindow: number,
    public windowMs: number,
    public daily: number,
  ) {}

  private prune(now: number): void {
    const from = now - this.windowMs;
    let drop = 0;
    while (drop < this.stamps.length && (this.stamps[drop] ?? 0) <= from) drop += 1;
    if (drop > 0) this.stamps = this.stamps.slice(drop);
  }

  /** Counts the request if allowed; otherwise says which policy refused it. */
  take(now: number): 'ok' | 'TEN_SECONDLY_ROLLING' | 'DAILY' {
    this.prune(now);
    if (this.dailyUsed >= this.daily) return 'DAILY';
    if (this.stamps.length >= this.perWindow) return 'TEN_SECONDLY_ROLLING';
    this.stamps.push(now);
    this.dailyUsed += 1;
    this.peak = Math.max(this.peak, this.stamps.length);
    return 'ok';
  }

  /** Requests counted in the window ending now. */
  inWindow(now: number): number {
    this.prune(now);
    return this.stamps.length;
  }

  resetPeak(): void {
    this.peak = 0;
  }

  headers(now: number): Record<string, string> {
    this.prune(now);
    return {
      'x-hubspot-ratelimit-interval-milliseconds': String(this.windowMs),
      'x-hubspot-ratelimit-max': String(this.perWindow),
      'x-hubspot-ratelimit-remaining': String(Math.max(0, this.perWindow - this.stamps.length)),
      'x-hubspot-ratelimit-daily': String(this.daily),
      'x-hubspot-ratelimit-daily-remaining': String(Math.max(0, this.daily - this.dailyUsed)),
    };
  }
}
