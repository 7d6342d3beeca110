/**
 * Writes a prospect-sync config pointing at an emulator host, with the searches a benchmark runs, and the environment
 * (secrets, Redis DB, queue prefix) a worker process needs for it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { EmulatorHost } from './emulator-host-client.js';

export const SI_CLIENT = { clientId: 'bench-client', clientSecret: 'bench-secret', accountId: 'bench' };
export const HUBSPOT_TOKEN = 'bench-hubspot-token';
export const SF_CLIENT = { clientId: 'bench-sf', clientSecret: 'bench-sf-secret' };
/** Benchmarks use their own Redis database (override with REDIS_URL). */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/9';

export interface BenchConfig {
  file: string;
  env: Record<string, string>;
  prefix: string;
}

/** `source` limits are the fallback only; the worker learns the real ones from the emulator's headers. */
export function writeBenchConfig(
  host: EmulatorHost,
  opts: {
    name: string;
    limits: { search: number; windowSeconds: number };
    searches: Record<string, unknown>[];
    parallelism?: number;
    credits?: { maxPerRun: number; maxPerDay: number };
    hubspotPer10s?: number;
    concurrency?: number;
  },
): BenchConfig {
  const destinations: Record<string, unknown> = {};
  if (host.hubspot)
    destinations.hs = {
      type: 'hubspot',
      accessToken: '${HUBSPOT_TOKEN}',
      baseUrl: host.hubspot,
      requestsPer10s: opts.hubspotPer10s ?? 190,
    };
  if (host.salesforce) {
    const sf = {
      type: 'salesforce',
      loginUrl: host.salesforce,
      clientId: SF_CLIENT.clientId,
      clientSecret: '${SF_CLIENT_SECRET}',
      maxApiShare: 1,
      externalIdField: 'Prospect_Sync_Id__c',
    };
    destinations['sf-bulk'] = { ...sf, bulkThreshold: 2000 };
    destinations['sf-collections'] = { ...sf, bulkThreshold: 1_000_000_000 };
  }
  const l = opts.limits;
  const config = {
    source: {
      baseUrl: host.salesIntel.url,
      auth: { tokenUrl: host.salesIntel.tokenUrl, clientId: SI_CLIENT.clientId, clientSecret: '${SI_CLIENT_SECRET}' },
      fallbackLimits: { search: l.search, count: l.search, dictionary: l.search, windowSeconds: l.windowSeconds },
      ...(opts.parallelism === undefined ? {} : { parallelism: opts.parallelism }),
      ...(opts.credits ? { credits: opts.credits } : {}),
    },
    destinations,
    reveal: { contactsAllowedSegments: ['bench'] },
    worker: { concurrency: opts.concurrency ?? 2 },
    searches: opts.searches,
  };
  const dir = mkdtempSync(join(tmpdir(), `bench-${opts.name}-`));
  const file = join(dir, 'prospect-sync.yaml');
  writeFileSync(file, stringify(config));
  const prefix = `bench-${opts.name}-${randomUUID().slice(0, 8)}`;
  return {
    file,
    prefix,
    env: {
      SI_CLIENT_SECRET: SI_CLIENT.clientSecret,
      HUBSPOT_TOKEN,
      SF_CLIENT_SECRET: SF_CLIENT.clientSecret,
      REDIS_URL,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    },
  };
}

export const companiesSearch = (
  name: string,
  destination: string,
  object: string,
  filter: unknown = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name,
  segment: 'bench',
  entity: 'companies',
  filter,
  destination,
  object,
  matchOn: destination === 'hs' ? { field: 'prospect_sync_id', from: 'id' } : { from: 'id' },
  fields:
    destination === 'hs'
      ? { name: 'name', domain: 'domain', numberofemployees: 'headcount' }
      : { Name: 'name', Website: 'domain', NumberOfEmployees: 'headcount', Industry: 'industry' },
  ...extra,
});

export const personsSearch = (
  name: string,
  destination: string,
  object: string,
  filter: unknown = {},
  extra: Record<string, unknown> = {},
): Record<string, unknown> => ({
  name,
  segment: 'bench',
  entity: 'persons',
  filter,
  view: ['contacts'],
  destination,
  object,
  matchOn: destination === 'hs' ? { field: 'prospect_sync_id', from: 'id' } : { from: 'id' },
  fields:
    destination === 'hs'
      ? {
          firstname: 'firstName',
          lastname: 'lastName',
          jobtitle: 'jobTitle',
          email: { from: 'contacts.email', overwrite: 'ifEmpty' },
        }
      : {
          FirstName: 'firstName',
          LastName: 'lastName',
          Title: 'jobTitle',
          Email: { from: 'contacts.email', overwrite: 'ifEmpty' },
        },
  associate: { company: { from: 'companyId' } },
  ...extra,
});
