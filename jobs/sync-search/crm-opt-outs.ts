/**
 * Opt-outs kept in the CRM (`suppress.crm`, docs/data-protection.md): before a persons search's walk, the match keys
 * of the CRM records whose opt-out field is true are read through the sink, page by page, into a compact set; the
 * walk's suppression then neither reveals nor writes them. Read at every run: an opt-out set in the CRM counts from
 * the next run on.
 */
import { CrmMappingConfigError } from '../../src/crm/errors.js';
import type { Logger } from '../../src/shared/logger.js';
import { CompactIdSet } from '../../src/source/index.js';
import type { CrmEnd } from './open-destination.js';

export async function readOptOuts(
  crm: CrmEnd,
  logger: Logger,
  signal?: AbortSignal,
): Promise<CompactIdSet | undefined> {
  const fields = crm.mapping.optOutFields ?? [];
  if (fields.length === 0) return undefined;
  if (crm.sink.optedOut === undefined)
    throw new CrmMappingConfigError(
      `suppress.crm: ${crm.sink.kind} destinations keep no opt-outs prospect-sync reads`,
      {
        kind: crm.sink.kind,
      },
    );
  const keys = new CompactIdSet();
  for await (const page of crm.sink.optedOut(crm.mapping.target, fields, signal ? { signal } : {}))
    for (const key of page) keys.add(key);
  logger.info({ optedOut: keys.size, fields }, 'crm opt-outs read');
  return keys;
}
