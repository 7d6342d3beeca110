export interface LoginThrottleOptions {
  /** Failed logins a client may make in one window before it is refused (default 10). */
  maxFailures?: number;
  /** The window, from the client's first failure (ms, default 5 min). */
  windowMs?: number;
  /** Clients remembered at most; past it the oldest are forgotten (bounds memory under a spray of addresses). */
  maxClients?: number;
}

interface Entry {
  failures: number;
  windowEnds: number;
}

/**
 * Failed logins per client address, in memory (each dashboard process counts its own). A client past
 * `maxFailures` in a window is refused until the window ends; other clients are not affected.
 */
export class LoginThrottle {
  private readonly clients = new Map<string, Entry>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxClients: number;

  constructor(opts: LoginThrottleOptions = {}) {
    this.maxFailures = opts.maxFailures ?? 10;
    this.windowMs = opts.windowMs ?? 5 * 60_000;
    this.maxClients = opts.maxClients ?? 10_000;
  }

  /** How long `client` must wait before its next try (0: it may try now). */
  retryAfterMs(client: string, now = Date.now()): number {
    const entry = this.clients.get(client);
    if (!entry) return 0;
    if (now >= entry.windowEnds) {
      this.clients.delete(client);
      return 0;
    }
    return entry.failures >= this.maxFailures ? entry.windowEnds - now : 0;
  }

  failed(client: string, now = Date.now()): void {
    const entry = this.clients.get(client);
    if (entry && now < entry.windowEnds) {
      entry.failures += 1;
      return;
    }
    this.clients.delete(client);
    if (this.clients.size >= this.maxClients) this.forgetOldest(now);
    this.clients.set(client, { failures: 1, windowEnds: now + this.windowMs });
  }

  succeeded(client: string): void {
    this.clients.delete(client);
  }

  private forgetOldest(now: number): void {
    for (const [client, entry] of this.clients) if (now >= entry.windowEnds) this.clients.delete(client);
    // Insertion order is window order: the first entry is the oldest.
    while (this.clients.size >= this.maxClients) {
      const oldest = this.clients.keys().next().value;
      if (oldest === undefined) break;
      this.clients.delete(oldest);
    }
  }
}
