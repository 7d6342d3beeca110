import type { Redis } from 'ioredis';
import type { AppConfig, DestinationConfig, SavedSearch } from '../../src/config/index.js';
import { companyObjectOf, defaultMatchField } from '../../src/crm/crm-objects.js';
import { createCrmWriter } from '../../src/crm/crm-writer.js';
import { compileFieldMapping } from '../../src/crm/field-mapping.js';
import { createHubSpotSink } from '../../src/crm/hubspot/hubspot-sink.js';
import type { CrmSink, CrmWriter, FieldMapping } from '../../src/crm/index.js';
import type { Logger } from '../../src/shared/logger.js';

/** The CRM end of one run: the sink, the writer around it (mapping, change detection, rejects) and the mapping. */
export interface Destination {
  sink: CrmSink;
  writer: CrmWriter;
  mapping: FieldMapping;
}

export interface OpenDestinationOptions {
  redis: Redis;
  prefix: string;
  logger: Logger;
  fullResync?: boolean;
}

async function openSink(destination: DestinationConfig, logger: Logger, options: OpenDestinationOptions): Promise<CrmSink> {
  if (destination.type === 'hubspot') {
    return createHubSpotSink({ accessToken: destination.accessToken, baseUrl: destination.baseUrl, requestsPer10s: destination.requestsPer10s, requestTimeoutMs: destination.requestTimeoutMs, logger, redis: options.redis, keyPrefix: options.prefix });
  }
  // Loaded only here: jsforce is ~200 modules and ~40 MB of RSS that HubSpot runs do not need.
  const { SalesforceSink } = await import('../../src/crm/salesforce/salesforce-sink.js');
  return new SalesforceSink({
    loginUrl: destination.loginUrl,
    clientId: destination.clientId,
    clientSecret: destination.clientSecret,
    apiVersion: destination.apiVersion,
    bulkThreshold: destination.bulkThreshold,
    maxApiShare: destination.maxApiShare,
    requestTimeoutMs: destination.requestTimeoutMs,
    logger,
    redis: options.redis,
    keyPrefix: options.prefix,
  });
}

/**
 * The company object and match field a person search links to: the match field of the search that writes that
 * destination's companies (falling back to Salesforce's externalIdField, then to this search's own match field).
 */
function associateTarget(config: AppConfig, search: SavedSearch, destination: DestinationConfig): { object: string; matchField: string } | undefined {
  if (!search.associate) return undefined;
  const object = companyObjectOf(destination.type);
  const companies = config.searches.find((s) => s.destination === search.destination && s.entity === 'companies' && s.object === object);
  return { object, matchField: companies?.matchOn.field ?? defaultMatchField(destination) ?? search.matchOn.field };
}

export async function openDestination(config: AppConfig, search: SavedSearch, destination: DestinationConfig, options: OpenDestinationOptions): Promise<Destination> {
  const associate = associateTarget(config, search, destination);
  const mapping = compileFieldMapping(
    { matchOn: search.matchOn, fields: search.fields, ...(search.associate ? { associate: search.associate } : {}) },
    { object: search.object, ...(associate ? { associate } : {}) },
  );
  const sink = await openSink(destination, options.logger, options);
  const writer = createCrmWriter({
    sink,
    redis: options.redis,
    keyPrefix: options.prefix,
    destination: search.destination,
    searchName: search.name,
    fullResync: options.fullResync ?? false,
    logger: options.logger,
  });
  return { sink, writer, mapping };
}
