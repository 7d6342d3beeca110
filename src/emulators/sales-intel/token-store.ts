/** Issued OAuth access tokens (opaque random strings) and their expiry. */
import { randomBytes } from 'node:crypto';

interface IssuedToken {
  accountId: string;
  expiresAt: number;
  seq: number;
}

export class TokenStore {
  private readonly tokens = new Map<string, IssuedToken>();
  private seq = 0;
  /** Tokens with seq <= this are expired. */
  private expiredUpTo = 0;

  constructor(
    private readonly lifetimeSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  issue(accountId: string): { accessToken: string; expiresIn: number } {
    const accessToken = randomBytes(24).toString('base64url');
    this.tokens.set(accessToken, { accountId, expiresAt: this.now() + this.lifetimeSeconds * 1000, seq: ++this.seq });
    return { accessToken, expiresIn: this.lifetimeSeconds };
  }

  /** The account of a live token, or undefined (unknown or expired). */
  verify(accessToken: string): string | undefined {
    const t = this.tokens.get(accessToken);
    if (!t) return undefined;
    if (t.seq <= this.expiredUpTo || this.now() >= t.expiresAt) {
      this.tokens.delete(accessToken);
      return undefined;
    }
    return t.accountId;
  }

  expireAll(): void {
    this.expiredUpTo = this.seq;
  }
}
