import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { SourceStats } from '../../src/source/index.js';
import { spawnGatedChild, type GatedChild } from '../helpers/gated-child.js';
import { sourceFixture, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const walker = fileURLToPath(new URL('./fixtures/governed-walker.ts', import.meta.url));

const spawnWalker = (env: Record<string, string>): GatedChild<SourceStats> => spawnGatedChild(walker, env);

describe('rate governor shared by OS processes (Redis state)', () => {
  // RateLimit-Reset in whole seconds (2 s windows) or with decimals (1.5 s), rounded up or down: a grant leaves the
  // governor's log when the server's window that counted it has surely ended, under either rounding.
  it.each([
    { windowMs: 2000, resetRounding: 'up' as const },
    { windowMs: 2000, resetRounding: 'down' as const },
    { windowMs: 1500, resetRounding: 'down' as const },
  ])(
    'three processes on one account (30 requests / $windowMs ms, reset rounded $resetRounding): zero 429s, >= ' +
      '90% of the allowance used',
    async ({ windowMs, resetRounding }) => {
      fx = await sourceFixture({
        windowSeconds: windowMs / 1000,
        resetRounding,
        accounts: [
          {
            clientId: 'demo-client',
            clientSecret: 'demo-secret',
            accountId: 'demo',
            limits: { search: 30, count: 30, dictionary: 30 },
          },
        ],
      });
      const env = { SI_URL: fx.emu.url, SI_TOKEN_URL: fx.emu.tokenUrl, PREFIX: fx.prefix };
      const walkers = [spawnWalker(env), spawnWalker(env), spawnWalker(env)];
      await Promise.all(walkers.map((w) => w.ready));
      // Start on a server window boundary so the allowance over the run is exactly windows x limit.
      const startAt = Math.ceil((Date.now() + 300) / windowMs) * windowMs;
      const windows = 5;
      const endAt = startAt + windows * windowMs;
      for (const w of walkers) w.go(`${startAt} ${endAt}`);
      await new Promise((r) => setTimeout(r, startAt - Date.now()));
      fx.emu.resetStats();
      const stats = await Promise.all(walkers.map((w) => w.result));
      const served = fx.emu.stats('demo');
      expect(served.served429.search).toBe(0);
      expect(stats.reduce((sum, s) => sum + s.throttled, 0)).toBe(0);
      const used = served.operations.search / (30 * windows);
      console.log(
        `governor: ${served.operations.search} search requests of ${30 * windows} allowed ` +
          `(${(used * 100).toFixed(1)}%), 429s: ${served.served429.search}`,
      );
      expect(used).toBeGreaterThanOrEqual(0.9);
      expect(used).toBeLessThanOrEqual(1);
      // Every process got a share of the work.
      for (const s of stats) expect(s.requests.search).toBeGreaterThan(5);
    },
    60_000,
  );

  it('with RateLimit-* headers absent, stays under the configured fallback', async () => {
    fx = await sourceFixture(
      { windowSeconds: 1 },
      { fallbackLimits: { search: 20, count: 20, dictionary: 20, windowSeconds: 1 } },
    );
    fx.emu.faults.set({ limiterDown: true });
    const samples: [number, number][] = [];
    const sampler = setInterval(() => samples.push([Date.now(), fx!.emu.stats('demo').operations.search]), 10);
    const stop = AbortSignal.timeout(3200);
    const walk = async (runId: string): Promise<void> => {
      try {
        for await (const _p of fx!.client.journey('companies', {}, { runId, pageSize: 5, signal: stop })) {
          // walking
        }
      } catch (error) {
        if (!stop.aborted) throw error;
      }
    };
    await Promise.all([walk('a'), walk('b'), walk('c')]);
    clearInterval(sampler);
    expect(await fx.newClient().count('companies', {})).toBe(2000);
    let maxInWindow = 0;
    for (const [t, n] of samples) {
      const later = samples.filter(([u]) => u > t && u <= t + 1000);
      if (later.length > 0) maxInWindow = Math.max(maxInWindow, later.at(-1)![1] - n);
    }
    expect(maxInWindow).toBeLessThanOrEqual(20);
    // It still works at the fallback pace (18 per 1.1 s over ~3 s) rather than stalling.
    expect(samples.at(-1)![1]).toBeGreaterThanOrEqual(36);
  }, 30_000);
});
