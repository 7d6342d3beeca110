import type * as associationsV4 from '@hubspot/api-client/lib/codegen/crm/associations/v4/index.js';
import type { CrmRecord, UpsertOutcome } from '../crm-sink.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { refusalError, schemaProblem } from './hubspot-errors.js';
import type { HubSpotApiError } from './hubspot-call-policy.js';
import { readByKey } from './hubspot-read.js';

/** contact → company, primary (the company shown on the contact). */
const CONTACT_TO_COMPANY_PRIMARY = 1;

/**
 * Links written persons to their companies (v4 batch create). A company not in HubSpot yet, or a refused link, is a
 * `linkError` on the outcome, never a reject: the person itself was written. Missing scopes (403) or an unknown
 * object throw like any other call.
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
    .filter(
      (p): p is { record: CrmRecord & { companyKey: string }; outcome: Extract<UpsertOutcome, { crmId: string }> } =>
        p.record.companyKey !== undefined && p.outcome !== undefined && p.outcome.status !== 'rejected',
    );
  if (wanted.length === 0) return outcomes;

  const unknown = [...new Set(wanted.map((p) => p.record.companyKey).filter((k) => !companyIds.has(k)))];
  if (unknown.length > 0) {
    const found = await readByKey(caller, to.object, to.matchField, unknown, [], signal);
    for (const [key, object] of found) companyIds.set(key, object.id);
  }

  const linkErrors = new Map<string, string>();
  const links = wanted.flatMap(({ record, outcome }) => {
    const companyId = companyIds.get(record.companyKey);
    if (companyId === undefined) {
      linkErrors.set(record.key, `company ${record.companyKey} is not in HubSpot`);
      return [];
    }
    return [{ key: record.key, companyKey: record.companyKey, from: outcome.crmId, to: companyId }];
  });
  if (links.length > 0) {
    const inputs = links.map((l) => ({
      _from: { id: l.from },
      to: { id: l.to },
      types: [
        {
          associationCategory: 'HUBSPOT_DEFINED' as associationsV4.AssociationSpecAssociationCategoryEnum,
          associationTypeId: CONTACT_TO_COMPANY_PRIMARY,
        },
      ],
    }));
    const answer = await caller.attempt(
      (c) => c.crm.associations.v4.batchApi.createWithHttpInfo(from.object, to.object, { inputs }),
      signal,
    );
    // Missing scopes or an unknown object type stop the run like any other call; other refusals fail the links only.
    if ('refusal' in answer && (answer.refusal.code === 403 || schemaProblem(answer.refusal) !== undefined)) {
      throw refusalError(answer.refusal, { operation: 'linking to companies', object: from.object });
    }
    const failed = 'refusal' in answer ? refusedLinks(links, answer.refusal) : failedLinks(links, answer.data);
    for (const [link, reason] of failed) {
      linkErrors.set(link.key, reason);
      // The cached id may be the cause (company deleted or merged in HubSpot): look it up again next time.
      companyIds.delete(link.companyKey);
    }
  }
  return outcomes.map((o) =>
    o.status !== 'rejected' && linkErrors.has(o.key) ? { ...o, linkError: linkErrors.get(o.key) ?? 'link failed' } : o,
  );
}

interface Link {
  key: string;
  companyKey: string;
  from: string;
  to: string;
}

interface LinkAnswer {
  results?: { fromObjectId?: unknown; toObjectId?: unknown }[];
  errors?: {
    category?: string;
    context?: Record<string, string[]>;
    errors?: { context?: Record<string, string[]> }[];
  }[];
}

/**
 * A refused request: every link failed, with HubSpot's category (never its message, which may quote ids and values).
 */
function refusedLinks(links: Link[], api: HubSpotApiError): Map<Link, string> {
  return new Map(links.map((l) => [l, `link refused (${api.code}): ${api.body?.category ?? 'error'}`]));
}

/**
 * A 201/207 answer: an error is attributed to every link whose contact or company id it names (in `context`, any key);
 * on a 207, a link neither confirmed by a result nor named by an error is failed too rather than reported linked.
 */
function failedLinks(links: Link[], answer: LinkAnswer): Map<Link, string> {
  const failed = new Map<Link, string>();
  const errors = answer.errors ?? [];
  for (const error of errors) {
    const contexts = [error.context, ...(error.errors ?? []).map((e) => e.context)];
    const ids = new Set(contexts.flatMap((c) => Object.values(c ?? {}).flat()).map(String));
    for (const l of links)
      if (ids.has(l.from) || ids.has(l.to)) failed.set(l, `link refused: ${error.category ?? 'error'}`);
  }
  if (errors.length > 0) {
    const confirmed = new Set((answer.results ?? []).map((r) => `${String(r.fromObjectId)}>${String(r.toObjectId)}`));
    for (const l of links)
      if (!failed.has(l) && !confirmed.has(`${l.from}>${l.to}`)) failed.set(l, 'link not confirmed by HubSpot');
  }
  return failed;
}
