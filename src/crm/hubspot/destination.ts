/** HubSpot as a destination (the port, src/crm/destination-port.ts): its config block, objects, pace, and its sink. */
import { z } from 'zod';
import { httpUrl, posInt, secret } from '../../config/config-fields.js';
import type { DestinationPort } from '../destination-port.js';
import { HUBSPOT_ASSUMED_PER_10S, hubspotCeiling, hubspotGovernorAccount } from './hubspot-limits.js';

const configSchema = z.strictObject({
  type: z.literal('hubspot').describe('HubSpot'),
  accessToken: secret.describe('private-app access token'),
  baseUrl: httpUrl.default('https://api.hubapi.com').describe("HubSpot's API address"),
  requestsPer10s: posInt
    .optional()
    .describe(
      "upper bound of requests per 10 s (absent: none): the portal's limit is learned from its answers; set it " +
        'only to leave part of that limit to other apps',
    ),
  requestTimeoutMs: posInt
    .default(30_000)
    .describe(
      'deadline of one HubSpot request (headers and whole answer); then it is retried like a 5xx (4 attempts) ' +
        'and the run fails crm_unavailable. Answers are read up to 16 MiB',
    ),
});

export type HubSpotDestinationConfig = z.output<typeof configSchema>;

export const hubspotDestination: DestinationPort<typeof configSchema> = {
  type: 'hubspot',
  configSchema,
  objects: { companies: ['companies'], persons: ['contacts'] },
  listObjects: ['companies', 'contacts'],
  archives: true,
  // Before the portal answered: the assumed requests per 10 s (the config's bound, else the lowest tier's), a batch
  // of records each. The opened sink's `ceiling()` follows what the portal answers.
  ceiling: (config) => hubspotCeiling(config.requestsPer10s ?? HUBSPOT_ASSUMED_PER_10S, 10_000),
  governorAccount: (config) => hubspotGovernorAccount(config.baseUrl, config.accessToken),
  async open(config, { redis, keyPrefix, logger }) {
    const { createHubSpotSink } = await import('./hubspot-sink.js');
    return createHubSpotSink({
      accessToken: config.accessToken,
      baseUrl: config.baseUrl,
      ...(config.requestsPer10s === undefined ? {} : { requestsPer10s: config.requestsPer10s }),
      requestTimeoutMs: config.requestTimeoutMs,
      logger,
      redis,
      keyPrefix,
    });
  },
};
