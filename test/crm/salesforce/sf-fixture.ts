import {
  startSalesforceEmulator,
  type SalesforceEmulator,
  type SalesforceEmulatorOptions,
} from '../../../src/emulators/salesforce/salesforce-emulator.js';
import { SalesforceSink, type SalesforceSinkOptions } from '../../../src/crm/salesforce/salesforce-sink.js';
import type { ObjectTarget } from '../../../src/crm/crm-sink.js';
import type { Redis } from 'ioredis';
import { testRedis } from '../../helpers/redis.js';

export const CLIENT = { clientId: 'ps-client', clientSecret: 's3cret-value' };

export const ACCOUNTS: ObjectTarget = {
  object: 'Account',
  matchField: 'Prospect_Sync_Id__c',
  fields: ['Name', 'Website', 'NumberOfEmployees', 'Description'],
};
export const CONTACTS: ObjectTarget = {
  object: 'Contact',
  matchField: 'Prospect_Sync_Id__c',
  fields: ['FirstName', 'LastName', 'Email', 'Title'],
  associate: { object: 'Account', matchField: 'Prospect_Sync_Id__c' },
};
export const LEADS: ObjectTarget = {
  object: 'Lead',
  matchField: 'Prospect_Sync_Id__c',
  fields: ['LastName', 'Company', 'Email'],
};

/**
 * An emulator plus a sink on it (its org governor in Redis under a test prefix), with test-speed retry and bulk
 * polling.
 */
export async function sfFixture(
  emulatorOptions: Partial<SalesforceEmulatorOptions> = {},
  sinkOptions: Partial<SalesforceSinkOptions> = {},
): Promise<{
  emulator: SalesforceEmulator;
  sink: SalesforceSink;
  redis: Redis;
  keyPrefix: string;
  close: () => Promise<void>;
}> {
  const emulator = await startSalesforceEmulator({ clients: [CLIENT], bulkProcessingDelayMs: 5, ...emulatorOptions });
  const { redis, prefix: keyPrefix, cleanup } = await testRedis('salesforce');
  const sink = new SalesforceSink({
    loginUrl: emulator.url,
    ...CLIENT,
    maxApiShare: 1,
    retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 50 },
    bulkPollIntervalMs: 20,
    redis,
    keyPrefix,
    ...sinkOptions,
  });
  return {
    emulator,
    sink,
    redis,
    keyPrefix,
    close: async () => {
      await sink.close();
      await emulator.close();
      await cleanup();
    },
  };
}

export function accounts(
  n: number,
  name = (i: number) => `Company ${i}`,
): { key: string; properties: Record<string, string | number> }[] {
  return Array.from({ length: n }, (_, i) => ({
    key: `acc-${i}`,
    properties: { Name: name(i), NumberOfEmployees: 10 + i },
  }));
}
