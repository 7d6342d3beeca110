/**
 * Salesforce as a destination (the port, src/crm/destination-port.ts): its config block, objects, limits, and its sink.
 */
import { z } from 'zod';
import { httpUrl, nonEmpty, posInt, secret } from '../../config/config-fields.js';
import type { DestinationPort } from '../destination-port.js';
import { salesforceGovernorAccount } from './salesforce-governor-account.js';

const configSchema = z.strictObject({
  type: z.literal('salesforce').describe('Salesforce'),
  loginUrl: httpUrl.default('https://login.salesforce.com').describe('where the client-credentials login goes'),
  clientId: nonEmpty.describe("the connected app's client id (client credentials)"),
  clientSecret: secret.describe("the connected app's client secret"),
  apiVersion: z
    .string()
    .regex(/^\d+\.\d$/, 'expected a version like "62.0"')
    .default('62.0')
    .describe('REST API version; quote it in YAML'),
  bulkThreshold: posInt.default(2000).describe('records per run from which Bulk API 2.0 is used'),
  maxApiShare: z.number().gt(0).lte(1).default(0.5).describe("share of the org's daily API requests a run may use"),
  externalIdField: nonEmpty.optional().describe('default matchOn.field for searches writing here'),
  requestTimeoutMs: posInt
    .default(120_000)
    .describe(
      'deadline of one Salesforce request, login, upload and poll included (headers and whole answer); then it is ' +
        'retried (5 attempts) and the run fails crm_unavailable. Answers are read up to 64 MiB',
    ),
});

export type SalesforceDestinationConfig = z.output<typeof configSchema>;

/** Records of the largest write the sync job gathers (its MAX_WRITE_BATCH): one Bulk API 2.0 job's worth. */
const MIN_PARTITION_RECORDS = 2_000;

export const salesforceDestination: DestinationPort<typeof configSchema> = {
  type: 'salesforce',
  configSchema,
  objects: { companies: ['Account'], persons: ['Contact', 'Lead'] },
  // Campaigns (CampaignMember): Accounts only where the org has "Accounts as Campaign Members" (checked at preflight).
  listObjects: ['Contact', 'Lead', 'Account'],
  matchFieldKey: 'externalIdField',
  archives: true,
  // No ceiling: the org's limit is a daily allowance (the share guard), not a short window.
  // Each piece holds at least one whole write (Bulk API 2.0 above `bulkThreshold`): smaller pieces would turn bulk
  // jobs into collection calls.
  minPartitionRecords: MIN_PARTITION_RECORDS,
  // Our own cap on its share of the org's daily allowance (`maxApiShare`), besides the daily limit itself.
  limitCodes: ['crm_api_share_exceeded'],
  governorAccount: (config) => salesforceGovernorAccount(config.loginUrl, config.clientId),
  async open(config, { redis, keyPrefix, logger }) {
    // Loaded only here: jsforce is a large package (memory and start-up CPU) that runs into other CRMs do not need.
    const { SalesforceSink } = await import('./salesforce-sink.js');
    return new SalesforceSink({
      loginUrl: config.loginUrl,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      apiVersion: config.apiVersion,
      bulkThreshold: config.bulkThreshold,
      maxApiShare: config.maxApiShare,
      requestTimeoutMs: config.requestTimeoutMs,
      logger,
      redis,
      keyPrefix,
    });
  },
};
