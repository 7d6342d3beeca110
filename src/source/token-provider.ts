/**
 * OAuth2 client-credentials token cache. One token in memory (never in Redis or logs), refreshed before expiry;
 * concurrent callers share one refresh; `invalidate(token)` after a 401 forces a refresh only once for that token.
 * The request executor takes the token after its rate-limit slot is granted, just before sending, so a token never
 * ages in the governor's queue; `take` says whether the token was issued while the caller waited for it.
 */
import { SourceAbortedError, SourceAuthError, SourceProtocolError } from './errors.js';
import type { HttpTransport } from './http-transport.js';
import { mapErrorResponse } from './call-policy.js';

/** Largest token answer read: an access token and its lifetime, a few hundred bytes. */
export const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/** A token as taken for one request. */
export interface TakenToken {
  value: string;
  /** Issued while this caller waited (a refresh it awaited): a 401 on it is not an expired token. */
  fresh: boolean;
}

interface CachedToken {
  value: string;
  /** Epoch ms after which we refresh proactively. */
  refreshAt: number;
}

export class TokenProvider {
  private current: CachedToken | null = null;
  private pending: Promise<CachedToken> | null = null;
  /** Token requests made (for stats). */
  requests = 0;

  constructor(
    private readonly http: HttpTransport,
    private readonly tokenUrl: URL,
    private readonly clientId: string,
    private readonly clientSecret: string,
  ) {}

  async get(signal?: AbortSignal): Promise<string> {
    return (await this.take(signal)).value;
  }

  /** The token to send now: the cached one while outside its refresh margin, else one issued for this call. */
  async take(signal?: AbortSignal): Promise<TakenToken> {
    if (this.current && Date.now() < this.current.refreshAt) return { value: this.current.value, fresh: false };
    return { value: (await this.refresh(signal)).value, fresh: true };
  }

  /** Drops `token` if it is still the cached one, so the next `get` refreshes (once, for all callers). */
  invalidate(token: string): void {
    if (this.current?.value === token) this.current = null;
  }

  private refresh(signal?: AbortSignal): Promise<CachedToken> {
    // Not tied to one caller's signal: other callers wait on the same refresh.
    this.pending ??= this.fetchToken().finally(() => {
      this.pending = null;
    });
    if (!signal) return this.pending;
    return Promise.race([
      this.pending,
      new Promise<never>((_, reject) => {
        if (signal.aborted) reject(new SourceAbortedError(signal.reason));
        signal.addEventListener('abort', () => reject(new SourceAbortedError(signal.reason)), { once: true });
      }),
    ]);
  }

  private async fetchToken(): Promise<CachedToken> {
    this.requests += 1;
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.clientId,
      client_secret: this.clientSecret,
    });
    const res = await this.http.send({
      method: 'POST',
      url: this.tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      maxBytes: MAX_TOKEN_ANSWER_BYTES,
    });
    if (res.status === 400 || res.status === 401 || res.status === 403) {
      const body = res.body as { error?: unknown } | null;
      const code = typeof body?.error === 'string' ? body.error : `HTTP ${res.status}`;
      throw new SourceAuthError(`the token endpoint refused the client credentials (${code})`, res.status);
    }
    if (res.status < 200 || res.status >= 300) throw mapErrorResponse(res.status, res.headers, res.body, undefined);
    const body = res.body as { access_token?: unknown; expires_in?: unknown } | null;
    if (typeof body?.access_token !== 'string' || body.access_token.length === 0) {
      throw new SourceProtocolError('the token endpoint answered without an access_token');
    }
    const lifetimeMs = (typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 300) * 1000;
    // Refresh at 80% of the lifetime, and at least 30 s early when the lifetime allows it.
    const early = Math.min(Math.max(lifetimeMs * 0.2, Math.min(30_000, lifetimeMs / 2)), lifetimeMs / 2);
    const token = { value: body.access_token, refreshAt: Date.now() + lifetimeMs - early };
    this.current = token;
    return token;
  }
}
