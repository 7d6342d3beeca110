/**
 * The source client's own timings: how long its search and count requests took (HTTP latency) and how long they
 * waited for the account's governor, as moving percentiles. The sync job sizes its journeys from them.
 */
/** A moving percentile over the last `size` samples (a ring; sorting 64 numbers per read is cheap). */
export class MovingPercentile {
  private readonly ring: number[] = [];
  private next = 0;

  constructor(private readonly size = 64) {}

  add(value: number): void {
    if (this.ring.length < this.size) this.ring.push(value);
    else this.ring[this.next] = value;
    this.next = (this.next + 1) % this.size;
  }

  get count(): number {
    return this.ring.length;
  }

  /** The p-th percentile (0..1) of the samples, null before the first. */
  at(p: number): number | null {
    if (this.ring.length === 0) return null;
    const sorted = [...this.ring].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? null;
  }
}

/** What the search requests of one client took: HTTP latency and the governor's wait, as moving windows. */
export class SearchTimings {
  readonly latency = new MovingPercentile(64);
  readonly wait = new MovingPercentile(64);
  /** HTTP time of count requests: the plan's stand-in for page latency before any page was fetched. */
  readonly countLatency = new MovingPercentile(16);

  record(waitMs: number, latencyMs: number): void {
    this.wait.add(waitMs);
    this.latency.add(latencyMs);
  }

  recordCount(latencyMs: number): void {
    this.countLatency.add(latencyMs);
  }

  snapshot(): TimingSnapshot {
    return {
      samples: this.latency.count,
      latencyP90Ms: this.latency.at(0.9),
      waitP50Ms: this.wait.at(0.5),
      countLatencyP50Ms: this.countLatency.at(0.5),
    };
  }
}

export interface TimingSnapshot {
  samples: number;
  /** p90 of the last 64 search requests' HTTP time; null before the first. */
  latencyP90Ms: number | null;
  /** Median governor wait of the last 64 search requests: above 0, the account's allowance is the limit. */
  waitP50Ms: number | null;
  /** Median HTTP time of the last 16 count requests (no token fetch, no governor wait); null before the first. */
  countLatencyP50Ms: number | null;
}
