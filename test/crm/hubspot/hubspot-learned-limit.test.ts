/**
 * A portal's limit is learned from its answers (X-HubSpot-RateLimit-Max / -Interval-Milliseconds), not from the
 * config: with no `requestsPer10s` the sink starts at the lowest tier's 100 and then follows the portal both ways;
 * a configured `requestsPer10s` stays an upper bound. Real @hubspot/api-client, the HubSpot emulator, real Redis.
 * The emulator's window is shortened to 3 s (the header says so, and the governor follows it).
 */
// @slow: windows of real time, several per test (the limit is learned and followed across them)
import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createHubSpotSink, type HubSpotSink, type ObjectTarget } from '../../../src/crm/index.js';
import { hubspotCeiling } from '../../../src/crm/hubspot/hubspot-limits.js';
import {
  DEFAULT_HUBSPOT_TOKEN,
  startHubSpotEmulator,
  type HubSpotEmulator,
} from '../../../src/emulators/hubspot/index.js';
import { listGovernorSnapshots } from '../../../src/shared/governor-snapshots.js';
import { testRedis } from '../../helpers/redis.js';

const WINDOW_MS = 3_000;
const companies: ObjectTarget = { object: 'companies', matchField: 'prospect_sync_id', fields: ['name'] };

let emu: HubSpotEmulator | undefined;
let sink: HubSpotSink | undefined;
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await sink?.close();
  await emu?.close();
  await cleanup?.();
  sink = emu = cleanup = undefined;
});

async function portal(
  perWindow: number,
  requestsPer10s?: number,
): Promise<{ emu: HubSpotEmulator; sink: HubSpotSink; redis: Redis; prefix: string }> {
  emu = await startHubSpotEmulator({ limits: { perTenSeconds: perWindow, windowMs: WINDOW_MS } });
  const r = await testRedis('hubspot-learned');
  cleanup = r.cleanup;
  sink = createHubSpotSink({
    accessToken: DEFAULT_HUBSPOT_TOKEN,
    baseUrl: emu.url,
    retry: { baseDelayMs: 5 },
    redis: r.redis,
    keyPrefix: r.prefix,
    ...(requestsPer10s === undefined ? {} : { requestsPer10s }),
  });
  await sink.prepare(companies);
  return { emu, sink, redis: r.redis, prefix: r.prefix };
}

/** Many writers at once, one request each (a one-record batch upsert), until `done` says stop. */
async function drive(s: HubSpotSink, done: () => boolean, writers = 32): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (!done()) {
        const k = next++;
        await s.upsert(companies, [{ key: `c_${k}`, properties: { name: `Company ${k}` } }]);
      }
    }),
  );
}

async function learnedLimit(redis: Redis, prefix: string): Promise<number | null> {
  const snapshot = (await listGovernorSnapshots(redis, prefix)).find((g) => g.remote === 'hubspot');
  return snapshot?.limit ?? null;
}

describe('HubSpot: the portal limit learned from its answers', () => {
  it.each([190, 250])(
    'no requestsPer10s in the config, a portal answering %i per window: every window is used to the answered ' +
      'limit, no 429',
    { timeout: 60_000 },
    async (limit) => {
      const { emu, sink, redis, prefix } = await portal(limit);
      expect(sink.ceiling()).toBe(hubspotCeiling(limit, WINDOW_MS)); // prepare's answers already taught it
      await drive(sink, () => emu.stats.requests >= 3 * limit);
      // Used to the answered limit, never past it (the last few percent of a window depend on the machine's load).
      expect(emu.limits.peak).toBeLessThanOrEqual(limit);
      expect(emu.limits.peak).toBeGreaterThanOrEqual(Math.floor(0.9 * limit));
      expect(emu.stats.throttled.TEN_SECONDLY_ROLLING).toBe(0);
      expect(sink.throttled).toBe(0);
      expect(await learnedLimit(redis, prefix)).toBe(limit);
    },
  );

  it(
    'a configured requestsPer10s is an upper bound: a portal answering more is walked at the configured pace',
    { timeout: 60_000 },
    async () => {
      // 150 per 10 s is 45 per 3 s window.
      const { emu, sink, redis, prefix } = await portal(250, 150);
      await drive(sink, () => emu.stats.requests >= 150);
      expect(emu.limits.peak).toBeLessThanOrEqual(45);
      expect(emu.limits.peak).toBeGreaterThanOrEqual(40);
      expect(await learnedLimit(redis, prefix)).toBe(45);
      expect(sink.ceiling()).toBe(hubspotCeiling(45, WINDOW_MS));
    },
  );

  it(
    'a portal whose limit changes mid-run (capacity pack bought, then a downgrade) is followed within one ' +
      'window, without a 429 storm',
    { timeout: 90_000 },
    async () => {
      const writers = 32;
      const { emu, sink, redis, prefix } = await portal(190);
      await drive(sink, () => emu.stats.requests >= 2 * 190, writers);
      expect(emu.limits.peak).toBeLessThanOrEqual(190);
      expect(emu.limits.peak).toBeGreaterThanOrEqual(171);

      let before = 190;
      for (const changed of [250, 150]) {
        emu.limits.perWindow = changed;
        const changedAt = Date.now();
        const throttledBefore = emu.stats.throttled.TEN_SECONDLY_ROLLING;
        const requestsBefore = emu.stats.requests;
        let followedAfterMs: number | undefined;
        const watch = setInterval(() => {
          void learnedLimit(redis, prefix).then((l) => {
            if (l === changed && followedAfterMs === undefined) followedAfterMs = Date.now() - changedAt;
          });
        }, 50);
        // One window for the change to be learned (and the requests counted before it to age out), then a fresh peak.
        await drive(sink, () => Date.now() - changedAt >= WINDOW_MS, writers);
        emu.limits.resetPeak();
        await drive(sink, () => emu.stats.requests - requestsBefore >= 3 * changed, writers);
        clearInterval(watch);
        expect(followedAfterMs).toBeDefined();
        expect(followedAfterMs!).toBeLessThanOrEqual(WINDOW_MS);
        // Never above the new limit; above the old one when it rose (how close to it a loaded machine's 32 writers get
        // within one window is not what this test is about).
        expect(emu.limits.peak).toBeLessThanOrEqual(changed);
        if (changed > before) expect(emu.limits.peak).toBeGreaterThan(before);
        before = changed;
        // At most the requests already in flight when the limit fell are refused, each once.
        expect(emu.stats.throttled.TEN_SECONDLY_ROLLING - throttledBefore).toBeLessThanOrEqual(writers);
        expect(sink.ceiling()).toBe(hubspotCeiling(changed, WINDOW_MS));
      }
    },
  );
});
