import type { AssociationSpecAssociationCategoryEnum } from '@hubspot/api-client/lib/codegen/crm/associations/v4/index.js';
import type { CrmRecord, UpsertOutcome } from '../crm-sink.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { asApiError } from './hubspot-retry.js';
import { readByKey } from './hubspot-read.js';

/** contact → company, primary (the company shown on the contact). */
export const CONTACT_TO_COMPANY_PRIMARY = 1;

/**
 * Links written persons to their companies (v4 batch create). A company not in HubSpot yet, or a refused link, is a
 * `linkError` on the outcome, never a reject: the person itself was written.
 */
export async function linkToCompanies(
  caller: HubSpotCaller,
  from: { object: string },
  to: { object: string; matchField: string },
  records: CrmRecord[],
  outcomes: UpsertOutcome[],
  companyIds: Map<string, string>,
  signal?: AbortSignal,
): Promise<UpsertOutcome[]> {
  const wanted = records
    .map((record, i) => ({ record, outcome: outcomes[i] }))
    .filter((p): p is { record: CrmRecord & { companyKey: string }; outcome: Extract<UpsertOutcome, { crmId: string }> } =>
      p.record.companyKey !== undefined && p.outcome !== undefined && p.outcome.status !== 'rejected');
  if (wanted.length === 0) return outcomes;

  const unknown = [...new Set(wanted.map((p) => p.record.companyKey).filter((k) => !companyIds.has(k)))];
  if (unknown.length > 0) {
    const found = await readByKey(caller, to.object, to.matchField, unknown, [], signal);
    for (const [key, object] of found) companyIds.set(key, object.id);
  }

  const linkErrors = new Map<string, string>();
  const inputs = wanted.flatMap(({ record, outcome }) => {
    const companyId = companyIds.get(record.companyKey);
    if (companyId === undefined) {
      linkErrors.set(record.key, `company ${record.companyKey} is not in HubSpot`);
      return [];
    }
    return [{ _from: { id: outcome.crmId }, to: { id: companyId }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as AssociationSpecAssociationCategoryEnum, associationTypeId: CONTACT_TO_COMPANY_PRIMARY }] }];
  });
  if (inputs.length > 0) {
    try {
      const answer = await caller.call((c) => c.crm.associations.v4.batchApi.createWithHttpInfo(from.object, to.object, { inputs }), signal);
      const crmIdToKey = new Map(wanted.map((p) => [p.outcome.crmId, p.record.key]));
      for (const error of 'errors' in answer ? (answer.errors ?? []) : []) {
        for (const id of error.context?.ids ?? []) {
          const key = crmIdToKey.get(id);
          if (key !== undefined) linkErrors.set(key, `link refused: ${error.category}`);
        }
      }
    } catch (err) {
      const api = asApiError(err);
      if (api === undefined) throw err;
      for (const p of wanted) if (!linkErrors.has(p.record.key)) linkErrors.set(p.record.key, `link refused (${api.code}): ${api.body?.category ?? 'error'}`);
    }
  }
  return outcomes.map((o) => (o.status !== 'rejected' && linkErrors.has(o.key) ? { ...o, linkError: linkErrors.get(o.key) ?? 'link failed' } : o));
}
