import type { Redis } from 'ioredis';
import type { AppConfig, DestinationConfig, SavedSearch } from '../../src/config/index.js';
import { createCrmWriter } from '../../src/crm/crm-writer.js';
import { companyObjectOf, defaultMatchField, openSink } from '../../src/crm/destinations.js';
import { compileFieldMapping } from '../../src/crm/field-mapping.js';
import type { CrmSink, CrmWriter, FieldMapping } from '../../src/crm/index.js';
import type { Logger } from '../../src/shared/logger.js';

/** The CRM end of one run: the sink, the writer around it (mapping, change detection, rejects) and the mapping. */
export interface CrmEnd {
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

/**
 * The company object and match field a person search links to: the match field of the search that writes that
 * destination's companies (falling back to the destination's default match field, then to this search's own).
 */
function associateTarget(
  config: AppConfig,
  search: SavedSearch,
  destination: DestinationConfig,
): { object: string; matchField: string } | undefined {
  if (!search.associate) return undefined;
  const object = companyObjectOf(destination.type);
  const companies = config.searches.find(
    (s) => s.destination === search.destination && s.entity === 'companies' && s.object === object,
  );
  return { object, matchField: companies?.matchOn.field ?? defaultMatchField(destination) ?? search.matchOn.field };
}

/** A persons search's opt-out fields (`suppress.crm`, top level and its own): read before its runs, preflighted. */
function optOutsOf(config: AppConfig, search: SavedSearch): { optOutFields?: string[] } {
  if (search.entity !== 'persons') return {};
  const fields = [...(config.suppress.crm?.fields ?? []), ...(search.suppress?.crm?.fields ?? [])];
  return fields.length > 0 ? { optOutFields: fields } : {};
}

export async function openDestination(
  config: AppConfig,
  search: SavedSearch,
  destination: DestinationConfig,
  options: OpenDestinationOptions,
): Promise<CrmEnd> {
  const associate = associateTarget(config, search, destination);
  const mapping = compileFieldMapping(
    {
      matchOn: search.matchOn,
      fields: search.fields,
      ...(search.associate ? { associate: search.associate } : {}),
      ...(search.list ? { list: search.list } : {}),
      ...(typeof search.onLeave === 'object' ? { setOnLeave: search.onLeave.setFields } : {}),
      ...optOutsOf(config, search),
    },
    { object: search.object, ...(associate ? { associate } : {}) },
  );
  // The destination's port (src/crm/destinations.ts) opens its sink, loading that CRM's client only now.
  const sink = await openSink(destination, { redis: options.redis, keyPrefix: options.prefix, logger: options.logger });
  const writer = createCrmWriter({
    sink,
    redis: options.redis,
    keyPrefix: options.prefix,
    destination: search.destination,
    searchName: search.name,
    searchObject: search.object,
    fullResync: options.fullResync ?? false,
    logger: options.logger,
  });
  return { sink, writer, mapping };
}
