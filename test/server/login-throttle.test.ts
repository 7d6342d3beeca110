import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../src/server/login-throttle.js';

describe('login throttle', () => {
  it('refuses a client past maxFailures until its window ends, then lets it try again; a success clears it', () => {
    const t = new LoginThrottle({ maxFailures: 2, windowMs: 1_000 });
    t.failed('a', 0);
    expect(t.retryAfterMs('a', 10)).toBe(0);
    t.failed('a', 100);
    expect(t.retryAfterMs('a', 400)).toBe(600);
    expect(t.retryAfterMs('b', 400)).toBe(0);
    expect(t.retryAfterMs('a', 1_050)).toBe(0);
    t.failed('a', 1_100);
    expect(t.retryAfterMs('a', 1_200)).toBe(0);
    t.failed('c', 0);
    t.succeeded('c');
    t.failed('c', 10);
    expect(t.retryAfterMs('c', 20)).toBe(0);
  });

  it('remembers at most maxClients: a spray of addresses cannot grow memory, and the newest are kept', () => {
    const t = new LoginThrottle({ maxFailures: 1, windowMs: 60_000, maxClients: 100 });
    for (let i = 0; i < 10_000; i++) t.failed(`10.0.${i >> 8}.${i & 255}`, i);
    expect((t as unknown as { clients: Map<string, unknown> }).clients.size).toBeLessThanOrEqual(100);
    expect(t.retryAfterMs('10.0.39.15', 10_000)).toBeGreaterThan(0); // the last one (i = 9999)
    expect(t.retryAfterMs('10.0.0.0', 10_000)).toBe(0);
  });
});
