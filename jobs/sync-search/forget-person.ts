/**
 * `forget <person-id | email>` (docs/data-protection.md, Erasure): finds every trace of one person in our stores and
 * their record in the CRM, and with `apply` removes them. Each store erases its own state (its `forget…` function);
 * this file only asks them in turn. By email: we keep no emails in Redis, so the person id is read from the CRM record
 * that holds the email (a search matching on the id and mapping the email); found nowhere, only the email is
 * suppressed. Under the run lock of every persons search: no run settles a membership in between.
 */
import type { AppConfig, SavedSearch } from '../../src/config/index.js';
import { forgetChangeHashes } from '../../src/crm/change-detector.js';
import type { CrmSink, EraseMode, ObjectTarget } from '../../src/crm/index.js';
import { openSink } from '../../src/crm/destinations.js';
import { forgetRejects } from '../../src/crm/reject-store.js';
import { forgetInJobs } from '../../src/queue/job-erase.js';
import { forgetInCheckpoints } from '../../src/runs/checkpoint-store.js';
import { appendErasure, type ErasureAudit } from '../../src/runs/erasure-audit.js';
import { forgetMember } from '../../src/runs/membership-store.js';
import { forgetRefreshKeys } from '../../src/runs/refresh-registry.js';
import { forgetInHistories } from '../../src/runs/run-history.js';
import { acquireRunLock, type RunLock } from '../../src/runs/run-lock.js';
import type { KeyHit } from '../../src/shared/key-erase.js';
import { redact } from '../../src/shared/redact.js';
import { defaultAccountKey, RevealLog } from '../../src/source/index.js';
import { ErasedPersons, erasedRefs } from '../../src/source/erased-persons.js';
import { RevealStore } from '../../src/source/reveal-store.js';
import type { SyncDeps } from '../sync-search.js';
import { AppError } from '../../src/shared/app-error.js';
import { redactText } from './run-errors.js';
import { DestinationNotFoundError } from './search-errors.js';

export type CrmErasure = EraseMode | 'nothing';

/** A destination whose sink has no `erase` (a test double, a CRM port without it): `--crm` cannot be served. */
export class CrmEraseUnsupportedError extends AppError {
  constructor(destination: string) {
    super('crm_erase_unsupported', `destination ${destination} cannot erase records: use --crm nothing`, {
      details: { destination },
    });
  }
}

export interface ForgetRequest {
  /** A person id, or an email (it has an `@`). */
  who: string;
  crm: CrmErasure;
  apply: boolean;
  reason?: string;
}

/** One store that holds the person: how many members, fields or values of it, in how many keys. */
export interface ForgetTrace {
  store: string;
  keys: number;
  count: number;
}

/** The person's record in a search's CRM object, as found (and, applied, what became of it). */
export interface ForgetCrmRecord {
  search: string;
  destination: string;
  object: string;
  found: boolean;
  action?: 'deleted' | 'archived' | 'kept' | 'missing';
  /** Why the record could not be looked up (redacted). */
  error?: string;
}

export interface ForgetReport {
  by: 'personId' | 'email';
  /** Whether we know the person's id and email (from the argument or the CRM record): never the values. */
  personIdKnown: boolean;
  emailKnown: boolean;
  /** The audit's name for the person: a SHA-256 reference, not the id or the email. */
  ref: string;
  traces: ForgetTrace[];
  crm: ForgetCrmRecord[];
  /** The person was in the store of erased persons already (an earlier `forget --apply`). */
  alreadySuppressed: boolean;
  applied: boolean;
  audit?: ErasureAudit;
}

const isEmail = (who: string): boolean => who.includes('@');

/** The CRM field a search writes the email to (mapped from `suppress.paths.email`), if it maps one. */
function emailFieldOf(search: SavedSearch, emailPath: string): string | undefined {
  for (const [field, from] of Object.entries(search.fields)) {
    const path = typeof from === 'string' ? from : 'from' in from ? from.from : undefined;
    if (path === emailPath) return field;
  }
  return undefined;
}

interface Lookup {
  search: SavedSearch;
  sink: CrmSink;
  /** The search's target with its own match field; the key the record is matched by, once known. */
  target: ObjectTarget;
  key?: string;
  record: ForgetCrmRecord;
}

/** What the CRM records tell of the person: their id, their email, and the match key of each search's record. */
async function lookUp(
  config: AppConfig,
  sinks: (destination: string) => Promise<CrmSink>,
  who: string,
): Promise<{ personId?: string; email?: string; lookups: Lookup[] }> {
  const idPath = config.source.idField;
  const emailPath = config.suppress.paths.email;
  let personId = isEmail(who) ? undefined : who;
  let email = isEmail(who) ? who.trim().toLowerCase() : undefined;
  const lookups: Lookup[] = [];
  for (const search of config.searches.filter((s) => s.entity === 'persons')) {
    const record: ForgetCrmRecord = {
      search: search.name,
      destination: search.destination,
      object: search.object,
      found: false,
    };
    const emailField = emailFieldOf(search, emailPath);
    const target: ObjectTarget = { object: search.object, matchField: search.matchOn.field, fields: [] };
    const lookup: Lookup = { search, sink: await sinks(search.destination), target, record };
    lookups.push(lookup);
    try {
      if (search.matchOn.from === idPath && personId !== undefined) {
        const found = await lookup.sink.readCurrent(target, [personId], emailField ? [emailField] : []);
        const values = found.get(personId);
        record.found = values !== undefined;
        lookup.key = personId;
        const value = emailField ? values?.[emailField] : undefined;
        if (typeof value === 'string' && value !== '') email ??= value.toLowerCase();
      } else if (search.matchOn.from === emailPath && email !== undefined) {
        const found = await lookup.sink.readCurrent(target, [email], []);
        record.found = found.has(email);
        lookup.key = email;
      } else if (search.matchOn.from === idPath && email !== undefined && emailField !== undefined) {
        // By email: the record that holds it names the person id in the match field.
        const byEmail = { ...target, matchField: emailField };
        const found = await lookup.sink.readCurrent(byEmail, [email], [search.matchOn.field]);
        const value = found.get(email)?.[search.matchOn.field];
        if (typeof value === 'string' && value !== '') {
          personId = value;
          record.found = true;
          lookup.key = value;
        }
      }
    } catch (err) {
      record.error = redactText(err instanceof Error ? err.message : String(err));
    }
  }
  // A search looked at before the other search found the id or email: its key is known now.
  for (const lookup of lookups) {
    if (lookup.key !== undefined) continue;
    if (lookup.search.matchOn.from === idPath) lookup.key = personId;
    else if (lookup.search.matchOn.from === emailPath) lookup.key = email;
  }
  return { ...(personId === undefined ? {} : { personId }), ...(email === undefined ? {} : { email }), lookups };
}

const trace = (store: string, hits: KeyHit[]): ForgetTrace[] =>
  hits.length === 0 ? [] : [{ store, keys: hits.length, count: hits.reduce((n, h) => n + h.count, 0) }];

/** Every store's part of the person, counted (or, applied, erased), store by store. */
async function eraseStores(
  deps: SyncDeps,
  person: { personId?: string; email?: string },
  apply: boolean,
): Promise<ForgetTrace[]> {
  const { redis, prefix, config } = deps;
  const ids = [person.personId, person.email].filter((x): x is string => x !== undefined);
  const traces: ForgetTrace[] = [];
  const account = `${prefix}:source:${defaultAccountKey(config.source.baseUrl, config.source.auth.clientId)}`;
  if (person.personId !== undefined) {
    const store = new RevealStore(redis, account, config.reveal.refreshAfterDays);
    if (await store.forget(person.personId, apply)) traces.push({ store: 'reveal store', keys: 1, count: 1 });
    const log = new RevealLog(redis, account, config.reveal.logDays);
    const n = apply ? await log.erase(person.personId) : await log.count(person.personId);
    if (n > 0) traces.push({ store: 'reveal log', keys: 1, count: n });
  }
  const searches = config.searches.filter((s) => s.entity === 'persons').map((s) => s.name);
  const membership: KeyHit[] = [];
  const refresh: KeyHit[] = [];
  for (const search of searches) {
    membership.push(...(await forgetMember(redis, search, ids, apply, prefix)));
    refresh.push(...(await forgetRefreshKeys(redis, search, ids, apply, prefix)));
  }
  // A persons search's own records keep their change fingerprints in the membership's record fields.
  const own = 'membership, list marks and change fingerprints';
  traces.push(...trace(own, membership), ...trace('refresh registry', refresh));
  traces.push(...trace('change hashes', await forgetChangeHashes(redis, prefix, ids, apply)));
  traces.push(...trace('rejects', await forgetRejects(redis, prefix, ids, ids, apply)));
  traces.push(...trace('run histories', await forgetInHistories(redis, ids, apply, prefix)));
  traces.push(...trace('checkpoints', await forgetInCheckpoints(redis, ids, apply, prefix)));
  traces.push(...trace('queued jobs', await forgetInJobs(redis, prefix, ids, apply)));
  return traces;
}

/** The person's CRM records erased as `how` says (each search's object once). */
async function eraseInCrm(lookups: Lookup[], how: EraseMode): Promise<void> {
  const done = new Map<string, ForgetCrmRecord['action']>();
  for (const { sink, target, key, record, search } of lookups) {
    if (!record.found || key === undefined) continue;
    const same = `${search.destination}\n${target.object}\n${target.matchField}\n${key}`;
    const earlier = done.get(same);
    if (earlier !== undefined) {
      record.action = earlier;
      continue;
    }
    if (!sink.erase) throw new CrmEraseUnsupportedError(search.destination);
    const result = await sink.erase(target, [key], how);
    record.action = result.archived.length > 0 ? (how === 'archive' ? 'archived' : 'deleted') : 'missing';
    done.set(same, record.action);
  }
}

export async function forgetPerson(deps: SyncDeps, request: ForgetRequest): Promise<ForgetReport> {
  const opened = new Map<string, Promise<CrmSink>>();
  const sinks = (name: string): Promise<CrmSink> => {
    let sink = opened.get(name);
    if (sink === undefined) {
      const destination = deps.config.destinations[name];
      const search = deps.config.searches.find((x) => x.destination === name)?.name ?? '?';
      if (destination === undefined) throw new DestinationNotFoundError(search, name);
      sink = openSink(destination, { redis: deps.redis, keyPrefix: deps.prefix, logger: deps.logger });
      opened.set(name, sink);
    }
    return sink;
  };
  const locks: RunLock[] = [];
  try {
    const { lookups, ...person } = await lookUp(deps.config, sinks, request.who);
    const erased = new ErasedPersons(deps.redis, deps.prefix);
    const report: ForgetReport = {
      by: isEmail(request.who) ? 'email' : 'personId',
      personIdKnown: person.personId !== undefined,
      emailKnown: person.email !== undefined,
      ref: erasedRefs(person)[0] ?? '',
      traces: [],
      crm: lookups.map((l) => l.record),
      alreadySuppressed: await erased.holds(person),
      applied: false,
    };
    if (!request.apply) {
      report.traces = await eraseStores(deps, person, false);
      return report;
    }
    // Under every persons search's run lock: no run adds the person back to a membership while it is erased.
    const at = `forget-${Date.now()}`;
    for (const s of deps.config.searches.filter((x) => x.entity === 'persons'))
      locks.push(await acquireRunLock(deps.redis, s.name, at, { prefix: deps.prefix }));
    // Suppressed first: a run that starts meanwhile neither reveals nor writes them.
    await erased.add(person);
    report.traces = await eraseStores(deps, person, true);
    if (request.crm !== 'nothing') await eraseInCrm(lookups, request.crm);
    for (const record of report.crm) if (record.found && record.action === undefined) record.action = 'kept';
    report.applied = true;
    const known = [person.personId, person.email, request.who].filter((x) => x !== undefined);
    report.audit = await appendErasure(deps.redis, deps.prefix, {
      at: new Date().toISOString(),
      ref: report.ref,
      by: report.by,
      stores: report.traces.map((t) => ({ store: t.store, count: t.count })),
      crm: report.crm.map((r) => ({ destination: r.destination, object: r.object, action: r.action ?? 'missing' })),
      ...(request.reason === undefined ? {} : { reason: redact(request.reason, { values: known }) }),
    });
    return report;
  } finally {
    for (const lock of locks) await lock.release().catch(() => undefined);
    for (const sink of opened.values()) await (await sink.catch(() => undefined))?.close();
  }
}
