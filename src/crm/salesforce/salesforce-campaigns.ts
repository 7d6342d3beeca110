import type { Connection } from 'jsforce';
import { inLanes } from '../../shared/in-lanes.js';
import { chunks } from '../chunks.js';
import type { ListChange, ListPort } from '../crm-sink.js';
import { CrmListError } from '../errors.js';
import type { SalesforceCaller } from './salesforce-caller.js';
import { COLLECTION_SIZE } from './salesforce-collections.js';
import { readByKey } from './salesforce-read.js';
import { describeFields, type SalesforceSchema } from './salesforce-schema.js';
import type { SaveResultLike } from './save-outcome.js';
import { inQueries, soqlString } from './soql-literal.js';

/**
 * The CampaignMember lookup of each object a campaign holds, by the object's record-id key prefix (fixed for standard
 * objects): a membership change gets only record ids. Accounts need the org's "Accounts as Campaign Members".
 */
const MEMBER_FIELDS: readonly { object: string; prefix: string; field: string }[] = [
  { object: 'Contact', prefix: '003', field: 'ContactId' },
  { object: 'Lead', prefix: '00Q', field: 'LeadId' },
  { object: 'Account', prefix: '001', field: 'AccountId' },
];

/** Objects a Salesforce campaign holds (the destination port's `listObjects`). */
const CAMPAIGN_OBJECTS = MEMBER_FIELDS.map((m) => m.object);

/** Save-result codes that mean the record is not there (deleted in Salesforce, or never was). */
const GONE = new Set(['ENTITY_IS_DELETED', 'INVALID_CROSS_REFERENCE_KEY']);

function memberField(object: string): string {
  const found = MEMBER_FIELDS.find((m) => m.object.toLowerCase() === object.toLowerCase());
  if (found === undefined)
    throw new CrmListError(`Salesforce campaigns hold ${CAMPAIGN_OBJECTS.join(', ')}, not ${object}`, {
      crm: 'salesforce',
      list: object,
      reason: 'object',
    });
  return found.field;
}

function memberFieldOfId(id: string): string | undefined {
  return MEMBER_FIELDS.find((m) => id.startsWith(m.prefix))?.field;
}

function notFound(campaignId: string): CrmListError {
  return new CrmListError(`Salesforce campaign ${campaignId} does not exist (deleted in Salesforce?)`, {
    crm: 'salesforce',
    list: campaignId,
    reason: 'not_found',
  });
}

function codeOf(result: SaveResultLike): string {
  return result.errors?.[0]?.statusCode ?? result.errors?.[0]?.errorCode ?? 'UNKNOWN_ERROR';
}

interface QueryPage<T> {
  records: T[];
  done?: boolean;
  nextRecordsUrl?: string;
}

/**
 * A search's Salesforce list: a Campaign found by Name (or created) and its CampaignMembers, by Contact, Lead or
 * Account Id. Every call goes through the sink's caller (the org's governor, share guard, call policy and request
 * deadline): Campaign lookups and member reads by SOQL, member inserts and deletes by sObject Collections (200 a call).
 */
export function createSalesforceCampaigns(caller: SalesforceCaller, schema: SalesforceSchema, lanes: number): ListPort {
  let memberLinks: Promise<string[]> | undefined;

  /** Every row of a query, one governed call per page (`nextRecordsUrl`). */
  async function queryAll<T>(soql: string, signal?: AbortSignal): Promise<T[]> {
    const rows: T[] = [];
    let page = await caller.call(
      async (conn) => (await conn.query<T & Record<string, unknown>>(soql)) as QueryPage<T>,
      signal,
    );
    rows.push(...page.records);
    while (page.done === false && page.nextRecordsUrl !== undefined) {
      const locator = page.nextRecordsUrl.split('/').pop()!;
      page = await caller.call(
        async (conn: Connection) => (await conn.queryMore<T & Record<string, unknown>>(locator)) as QueryPage<T>,
        signal,
      );
      rows.push(...page.records);
    }
    return rows;
  }

  async function campaignIds(name: string, signal?: AbortSignal): Promise<string[]> {
    const rows = await queryAll<{ Id: string }>(`SELECT Id FROM Campaign WHERE Name = ${soqlString(name)}`, signal);
    return rows.map((r) => r.Id);
  }

  async function addMembers(
    campaignId: string,
    add: string[],
    change: ListChange,
    signal?: AbortSignal,
  ): Promise<void> {
    const records = add.map((id) => {
      const field = memberFieldOfId(id);
      if (field === undefined)
        throw new CrmListError(`${id} is not a Contact, Lead or Account id`, {
          crm: 'salesforce',
          list: campaignId,
          reason: 'object',
        });
      return { attributes: { type: 'CampaignMember' }, CampaignId: campaignId, [field]: id };
    });
    const parts = chunks(records, COLLECTION_SIZE);
    const results = await inLanes(parts, lanes, (part) =>
      caller.call(
        async (conn) =>
          (await conn.create('CampaignMember', part as never[], { allOrNone: false })) as unknown as SaveResultLike[],
        signal,
      ),
    );
    const ids = parts.flat().map((r) => String(r.ContactId ?? r.LeadId ?? r.AccountId));
    results.flat().forEach((result, i) => {
      const id = ids[i]!;
      if (result.success) return void change.added.push(id);
      const code = codeOf(result);
      // A member already: what the change wants.
      if (code === 'DUPLICATE_VALUE') return;
      if (result.errors?.some((e) => e.fields?.includes('CampaignId'))) throw notFound(campaignId);
      if (GONE.has(code)) return void change.missing.push(id);
      // The code only: Salesforce's message may quote the record's values.
      throw new CrmListError(`Salesforce refused a campaign member (${code})`, {
        crm: 'salesforce',
        list: campaignId,
        reason: 'refused',
      });
    });
  }

  async function removeMembers(
    campaignId: string,
    remove: string[],
    change: ListChange,
    signal?: AbortSignal,
  ): Promise<void> {
    const byField = new Map<string, string[]>();
    for (const id of remove) {
      const field = memberFieldOfId(id);
      if (field !== undefined) byField.set(field, [...(byField.get(field) ?? []), id]);
    }
    const queries = [...byField].flatMap(([field, ids]) =>
      inQueries(
        ['Id', field],
        'CampaignMember',
        field,
        ids,
        COLLECTION_SIZE,
        8000,
        `CampaignId = ${soqlString(campaignId)}`,
      ).map((soql) => ({ soql, field })),
    );
    const found = (
      await inLanes(queries, lanes, async ({ soql, field }) =>
        (await queryAll<Record<string, string | null>>(soql, signal)).map((r) => ({
          memberId: String(r.Id),
          recordId: String(r[field]),
        })),
      )
    ).flat();
    const parts = chunks(found, COLLECTION_SIZE);
    const results = await inLanes(parts, lanes, (part) =>
      caller.call(
        async (conn) =>
          (await conn.destroy(
            'CampaignMember',
            part.map((m) => m.memberId),
            { allOrNone: false },
          )) as unknown as SaveResultLike[],
        signal,
      ),
    );
    const sent = parts.flat();
    results.flat().forEach((result, i) => {
      // Deleted meanwhile (or with its record): gone either way.
      if (result.success) change.removed.push(sent[i]!.recordId);
      else if (!GONE.has(codeOf(result)))
        throw new CrmListError(`Salesforce refused to delete a campaign member (${codeOf(result)})`, {
          crm: 'salesforce',
          list: campaignId,
          reason: 'refused',
        });
    });
  }

  return {
    /**
     * The campaign named `name`, or a new one. Names are not unique in Salesforce: with two or more campaigns of the
     * name, which one is meant cannot be known, so the list is refused (rename one of them).
     */
    async ensureList(object, name, options) {
      memberField(object);
      const signal = options?.signal;
      const ids = await campaignIds(name, signal);
      if (ids.length > 1) {
        throw new CrmListError(
          `Salesforce has ${ids.length} campaigns named "${name}" (${ids.join(', ')}): campaign names are not ` +
            `unique in Salesforce, so prospect-sync cannot tell which one is the search's list; rename or delete ` +
            `all but one`,
          { crm: 'salesforce', list: name, reason: 'name_ambiguous' },
        );
      }
      if (ids.length === 1) return ids[0]!;
      const created = await caller.call(
        async (conn) => (await conn.create('Campaign', { Name: name, IsActive: true })) as unknown as SaveResultLike,
        signal,
      );
      if (!created.success || !created.id)
        throw new CrmListError(`Salesforce refused to create the campaign "${name}" (${codeOf(created)})`, {
          crm: 'salesforce',
          list: name,
          reason: 'refused',
        });
      return created.id;
    },

    async changeMembers(listId, add, remove, options) {
      const change: ListChange = { added: [], removed: [], missing: [] };
      if (add.length > 0) await addMembers(listId, add, change, options?.signal);
      if (remove.length > 0) await removeMembers(listId, remove, change, options?.signal);
      return change;
    },

    async members(listId, options) {
      // AccountId exists only where the org has Accounts as Campaign Members: the describe says which links there are.
      memberLinks ??= describeFields(caller, 'CampaignMember', options?.signal)
        .then((fields) => {
          const names = new Set(fields.map((f) => f.name));
          return MEMBER_FIELDS.map((m) => m.field).filter((f) => names.has(f));
        })
        .catch((err: unknown) => {
          memberLinks = undefined;
          throw err;
        });
      const select = await memberLinks;
      const rows = await queryAll<Record<string, string | null>>(
        `SELECT Id, ${select.join(', ')} FROM CampaignMember WHERE CampaignId = ${soqlString(listId)}`,
        options?.signal,
      );
      return rows
        .map((r) => select.map((f) => r[f]).find((v) => typeof v === 'string' && v !== ''))
        .filter((v): v is string => v !== undefined);
    },

    async recordIds(object, matchField, keys, options) {
      const target = { object, matchField, fields: [] };
      const { canonical } = await schema.prepare(target, options?.signal);
      const found = await readByKey(caller, target, canonical, [...keys], ['Id'], lanes, options?.signal);
      return new Map([...found].map(([key, values]) => [key, String(values.Id)]));
    },
  };
}
