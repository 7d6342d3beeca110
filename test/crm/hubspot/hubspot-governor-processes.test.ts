import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createHubSpotSink } from '../../../src/crm/index.js';
import {
  DEFAULT_HUBSPOT_TOKEN,
  startHubSpotEmulator,
  type HubSpotEmulator,
} from '../../../src/emulators/hubspot/index.js';
import { listGovernorSnapshots } from '../../../src/shared/governor-snapshots.js';
import { spawnGatedChild, type GatedChild } from '../../helpers/gated-child.js';
import { testRedis } from '../../helpers/redis.js';

const writer = fileURLToPath(new URL('./fixtures/portal-writer.ts', import.meta.url));

const spawnWriter = (env: Record<string, string>): GatedChild<{ throttled: number }> => spawnGatedChild(writer, env);

let emu: HubSpotEmulator | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await emu?.close();
  emu = undefined;
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe('HubSpot portal governor shared by OS processes (Redis state)', () => {
  it(
    'two processes writing to one portal at 20 requests / 2 s: zero 429s, never above the limit in any ' + 'window',
    async () => {
      const limit = 20;
      const windowMs = 2000;
      emu = await startHubSpotEmulator({ limits: { perTenSeconds: limit, windowMs } });
      const { redis, prefix, cleanup } = await testRedis('hubspot-procs');
      cleanups.push(cleanup);
      // The match property exists before the writers start (only one process may create it).
      const setup = createHubSpotSink({
        accessToken: DEFAULT_HUBSPOT_TOKEN,
        baseUrl: emu.url,
        redis,
        keyPrefix: `${prefix}:setup`,
      });
      await setup.prepare({ object: 'contacts', matchField: 'prospect_sync_id', fields: ['email', 'firstname'] });
      await setup.close();

      // Every request the emulator let in (its own rolling-window verdicts), timed at arrival.
      const arrivals: number[] = [];
      const take = emu.limits.take.bind(emu.limits);
      emu.limits.take = (now: number) => {
        const verdict = take(now);
        if (verdict === 'ok') arrivals.push(now);
        return verdict;
      };

      const env = { HUBSPOT_URL: emu.url, PREFIX: prefix, BATCHES: '30', PARALLEL: '4' };
      const writers = [spawnWriter({ ...env, TAG: 'a' }), spawnWriter({ ...env, TAG: 'b' })];
      await Promise.all(writers.map((w) => w.ready));
      await new Promise((r) => setTimeout(r, windowMs)); // the setup calls leave the window
      for (const w of writers) w.go();
      const results = await Promise.all(writers.map((w) => w.result));

      expect(emu.state.count('contacts')).toBe(2 * 30 * 10);
      expect(emu.stats.throttled.TEN_SECONDLY_ROLLING).toBe(0);
      expect(results.map((r) => r.throttled)).toEqual([0, 0]);
      let maxInWindow = 0;
      for (let i = 0; i < arrivals.length; i++) {
        const inWindow = arrivals.filter((t) => t > arrivals[i]! - windowMs && t <= arrivals[i]!).length;
        maxInWindow = Math.max(maxInWindow, inWindow);
      }
      expect(arrivals.length).toBeGreaterThanOrEqual(2 * 30);
      expect(maxInWindow).toBeLessThanOrEqual(limit);
      // The governor learned the portal's limit from the headers and counted both processes' requests.
      const [snapshot] = (await listGovernorSnapshots(redis, prefix)).filter((s) => s.remote === 'hubspot');
      expect(snapshot).toMatchObject({
        operation: 'requests',
        limit,
        windowMs,
        mode: 'headers',
        requests: { '2xx': arrivals.length, '429': 0 },
      });
      expect(snapshot!.account).not.toContain(DEFAULT_HUBSPOT_TOKEN);
    },
    60_000,
  );
});
