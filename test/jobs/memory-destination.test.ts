/**
 * A third CRM needs only its port and one registry entry: a minimal in-memory destination, registered through the
 * registry's public API, is configured in YAML and written by whole runs (real Sales-Intelligence emulator, real
 * Redis), with nothing of jobs/ or src/config/ told about it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { syncSearch } from '../../jobs/sync-search.js';
import { RunFailedError } from '../../jobs/sync-search/run-errors.js';
import { ConfigError } from '../../src/config/index.js';
import {
  destinationPort,
  registerDestination,
  type CrmRecord,
  type CrmSink,
  type CrmValue,
  type DestinationPort,
  type ObjectTarget,
  type UpsertOutcome,
} from '../../src/crm/index.js';
import { SOURCE_YAML, startFixture, type Fixture } from './sync-fixture.js';

/** What the in-memory CRM holds: per object, records by match key (keys compare exactly). */
type Store = Map<string, Map<string, { id: string; properties: Record<string, CrmValue>; companyKey?: string }>>;

const configSchema = z.strictObject({
  type: z.literal('memory'),
  keyField: z.string().min(1).optional(),
});

/** A CrmSink over a Map: every record it is given is created once, then updated. */
function memorySink(store: Store): CrmSink {
  let ids = 0;
  return {
    kind: 'memory',
    preflight: () => Promise.resolve(),
    prepare: () => Promise.resolve(),
    readCurrent(target: ObjectTarget, keys: string[], fields: string[]) {
      const table = store.get(target.object);
      const out = new Map<string, Record<string, CrmValue>>();
      for (const key of keys) {
        const found = table?.get(key);
        if (found) out.set(key, Object.fromEntries(fields.map((f) => [f, found.properties[f] ?? null])));
      }
      return Promise.resolve(out);
    },
    upsert(target: ObjectTarget, records: CrmRecord[]) {
      const table = store.get(target.object) ?? new Map();
      store.set(target.object, table);
      const outcomes = records.map((r): UpsertOutcome => {
        const existing = table.get(r.key);
        const id = existing?.id ?? `mem-${++ids}`;
        table.set(r.key, {
          id,
          properties: { ...existing?.properties, ...r.properties },
          ...(r.companyKey ? { companyKey: r.companyKey } : {}),
        });
        return { key: r.key, status: existing ? 'updated' : 'created', crmId: id };
      });
      return Promise.resolve(outcomes);
    },
    preferredBatchSize: () => 100,
    identity: () => Promise.resolve('memory:one'),
    close: () => Promise.resolve(),
  };
}

const store: Store = new Map();
const opened: string[] = [];
const memoryDestination: DestinationPort<typeof configSchema> = {
  type: 'memory',
  configSchema,
  objects: { companies: ['Organization'], persons: ['Person'] },
  matchFieldKey: 'keyField',
  limitCodes: ['memory_quota_used'],
  open(config) {
    opened.push(config.type);
    return Promise.resolve(memorySink(store));
  },
};

const yaml = (searches: string): string => `${SOURCE_YAML}
  pageSize: 50
destinations:
  mem:
    type: memory
    keyField: external_id
searches:
${searches}`;

const ORGANIZATIONS = `  - name: organizations
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 1000000}}}
    destination: mem
    object: Organization
    matchOn: {from: id}
    fields: {name: name, employees: headcount}
`;
const PEOPLE = `  - name: people
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 1000000}}, person: {seniority: {include: [director, vp]}}}
    view: [demographics]
    destination: mem
    object: Person
    matchOn: {from: id}
    fields: {first: firstName, last: lastName}
    associate: {company: {from: companyId}}
`;

let fx: Fixture;
let unregister: () => void;
beforeAll(async () => {
  unregister = registerDestination(memoryDestination);
  fx = await startFixture('memory-destination', { hubspot: false });
});
afterAll(async () => {
  unregister();
  await fx.close();
});

describe('a destination registered from outside (src/crm/destinations.ts)', () => {
  it('is configured, checked and written by whole runs through its port alone', async () => {
    const config = fx.config(yaml(ORGANIZATIONS + PEOPLE));
    // The port's matchFieldKey gave both searches their match field.
    expect(config.searches.map((s) => s.matchOn.field)).toEqual(['external_id', 'external_id']);
    const companies = await fx.oracleIds('companies', { company: { headcount: { gte: 1, lte: 1000000 } } });
    const personFilter = {
      company: { headcount: { gte: 1, lte: 1000000 } },
      person: { seniority: { include: ['director', 'vp'] } },
    };
    const persons = await fx.oracleRecords('persons', personFilter);
    expect(companies.length).toBeGreaterThan(100);
    expect(persons.length).toBeGreaterThan(20);

    const first = await syncSearch(fx.deps(config), { search: 'organizations', runId: 'mem-1' });
    expect(first).toMatchObject({ status: 'completed', created: companies.length, updated: 0, rejected: 0 });
    expect([...(store.get('Organization')?.keys() ?? [])].sort()).toEqual(companies);
    // Change detection and the writer work on it as on any CRM: nothing changed, nothing is sent again.
    const again = await syncSearch(fx.deps(config), { search: 'organizations', runId: 'mem-2' });
    expect(again).toMatchObject({ status: 'completed', created: 0, unchanged: companies.length });

    const people = await syncSearch(fx.deps(config), { search: 'people', runId: 'mem-3' });
    expect(people).toMatchObject({ status: 'completed', created: new Set(persons.map((p) => p.id)).size, rejected: 0 });
    // Persons link to the port's company object, by the match field the companies search writes.
    const companyOf = new Map(persons.map((p) => [String(p.id), String(p.companyId)]));
    const written = store.get('Person') ?? new Map();
    expect(written.size).toBe(companyOf.size);
    for (const [key, record] of written) expect(record.companyKey).toBe(companyOf.get(key));
    expect(opened).toEqual(['memory', 'memory', 'memory']);
  });

  it('its objects, default match field and limit codes are what the config checks and the run use', () => {
    const wrongObject = yaml(ORGANIZATIONS.replace('object: Organization', 'object: Person'));
    expect(() => fx.config(wrongObject)).toThrow(ConfigError);
    expect(() => fx.config(wrongObject)).toThrow(/companies land in Organization on memory/);
    expect(() => fx.config(yaml(ORGANIZATIONS).replace('    keyField: external_id\n', ''))).toThrow(
      /required \(or set externalIdField on a salesforce destination or set keyField on a memory destination\)/,
    );
    // Its port does not say `archives`: `onLeave: archive` is refused at config time, naming the search.
    const archiving = yaml(
      ORGANIZATIONS.replace(
        '    fields: {name: name, employees: headcount}\n',
        '    fields: {name: name, employees: headcount}\n    onLeave: archive\n',
      ),
    );
    expect(() => fx.config(archiving)).toThrow(/searches\[0\]\.onLeave.*memory destinations cannot archive records/s);
    // The same for `suppressed: archive`; and opt-outs are read from person records only.
    const suppressing = yaml(
      ORGANIZATIONS.replace(
        '    fields: {name: name, employees: headcount}\n',
        '    fields: {name: name, employees: headcount}\n    suppressed: archive\n' +
          '    suppress: {crm: {fields: [opted_out]}}\n',
      ),
    );
    expect(() => fx.config(suppressing)).toThrow(/searches\[0\]\.suppressed.*memory destinations cannot archive/s);
    expect(() => fx.config(suppressing)).toThrow(/searches\[0\]\.suppress\.crm.*needs entity: persons/s);
    // A used-up allowance of this CRM stops the run for a later retry, as the built-in CRMs' do.
    expect(
      new RunFailedError('organizations', { code: 'memory_quota_used', message: 'quota' }).retryAfterMs,
    ).toBeGreaterThan(0);
  });

  it('a type is registered once; a type no port knows is a config error', () => {
    expect(() => registerDestination(memoryDestination)).toThrow(
      expect.objectContaining({ code: 'config_invalid', message: "a destination type 'memory' is already registered" }),
    );
    expect(() => destinationPort('nowhere')).toThrow(
      expect.objectContaining({
        code: 'config_invalid',
        message: "no destination type 'nowhere' is registered (known: hubspot, salesforce, memory)",
      }),
    );
  });
});
