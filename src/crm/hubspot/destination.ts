/** HubSpot as a destination (the port, src/crm/destination-port.ts): its config block, objects, pace, and its sink. */
import { z } from 'zod';
import { httpUrl, posInt, secret } from '../../config/config-fields.js';
import type { DestinationPort } from '../destination-port.js';
import { HUBSPOT_BATCH_SIZE } from './hubspot-limits.js';

const configSchema = z.strictObject({
  type: z.literal('hubspot'),
  accessToken: secret,
  baseUrl: httpUrl.default('https://api.hubapi.com'),
  requestsPer10s: posInt.default(100).describe('private app limit per 10 s rolling window (100 Free/Starter, 190 Pro)'),
});

export type HubSpotDestinationConfig = z.output<typeof configSchema>;

export const hubspotDestination: DestinationPort<typeof configSchema> = {
  type: 'hubspot',
  configSchema,
  objects: { companies: ['companies'], persons: ['contacts'] },
  // A portal's private-app requests per 10 s, a batch of records each.
  ceiling: (config) => (config.requestsPer10s / 10) * HUBSPOT_BATCH_SIZE,
  async open(config, { redis, keyPrefix, logger }) {
    const { createHubSpotSink } = await import('./hubspot-sink.js');
    return createHubSpotSink({ accessToken: config.accessToken, baseUrl: config.baseUrl, requestsPer10s: config.requestsPer10s, logger, redis, keyPrefix });
  },
};
