import { afterEach } from 'vitest';
import { testRedis } from '../../helpers/redis.js';
import type { Redis } from 'ioredis';
import { createHubSpotSink, type HubSpotSink, type HubSpotSinkOptions } from '../../../src/crm/index.js';
import {
  DEFAULT_HUBSPOT_TOKEN,
  startHubSpotEmulator,
  type HubSpotEmulator,
  type HubSpotEmulatorOptions,
} from '../../../src/emulators/hubspot/index.js';

export type HubSpotSetup = (
  options?: HubSpotEmulatorOptions,
  sinkOptions?: Partial<HubSpotSinkOptions>,
) => Promise<{ emu: HubSpotEmulator; sink: HubSpotSink; redis: Redis; keyPrefix: string }>;

/**
 * An emulator plus a sink on it (test-speed backoff, the emulator's token unless `sinkOptions.accessToken` differs),
 * both closed after each test of the calling file.
 */
export function useHubSpot(): HubSpotSetup {
  let emu: HubSpotEmulator | undefined;
  let sink: HubSpotSink | undefined;
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await sink?.close();
    await emu?.close();
    await cleanup?.();
    sink = undefined;
    emu = undefined;
    cleanup = undefined;
  });
  return async (options = {}, sinkOptions = {}) => {
    emu = await startHubSpotEmulator(options);
    const accessToken = options.accessToken ?? DEFAULT_HUBSPOT_TOKEN;
    const r = await testRedis('hubspot');
    cleanup = r.cleanup;
    sink = createHubSpotSink({
      accessToken,
      baseUrl: `${emu.url}/`,
      requestsPer10s: 190,
      retry: { baseDelayMs: 5 },
      redis: r.redis,
      keyPrefix: r.prefix,
      ...sinkOptions,
    });
    return { emu, sink, redis: r.redis, keyPrefix: r.prefix };
  };
}
