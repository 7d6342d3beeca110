/**
 * Vendors HubSpot's published OpenAPI specs (github.com/HubSpot/HubSpot-public-api-spec-collection) trimmed to the
 * operations prospect-sync and the HubSpot emulator use, with every schema they reach; the Lists spec's recursive
 * filter schemas are stubbed (they make validators crawl and we send no filter). Each trimmed spec records its source
 * (repository, path, commit) under `info.x-source`.
 *
 *   git clone https://github.com/HubSpot/HubSpot-public-api-spec-collection /tmp/specs
 *   npx tsx test/contracts/trim-specs.ts /tmp/specs     # a work tree or a bare git directory; its HEAD is read
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const REPOSITORY = 'HubSpot/HubSpot-public-api-spec-collection';

/** Trimmed spec file → its source path and the operations kept (method, path template). */
export const SPECS: Record<string, { path: string; operations: [string, string][] }> = {
  'companies.json': {
    path: 'PublicApiSpecs/CRM/Companies/Rollouts/424/v3/companies.json',
    operations: ['upsert', 'create', 'update', 'read', 'archive'].map((op) => [
      'post',
      `/crm/v3/objects/companies/batch/${op}`,
    ]),
  },
  'contacts.json': {
    path: 'PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json',
    operations: [
      ...['upsert', 'create', 'update', 'read', 'archive'].map((op): [string, string] => [
        'post',
        `/crm/v3/objects/contacts/batch/${op}`,
      ]),
      ['post', '/crm/v3/objects/contacts/search'],
      ['post', '/crm/v3/objects/contacts/gdpr-delete'],
    ],
  },
  'properties.json': {
    path: 'PublicApiSpecs/CRM/Properties/Rollouts/145899/v3/properties.json',
    operations: [
      ['get', '/crm/v3/properties/{objectType}'],
      ['post', '/crm/v3/properties/{objectType}'],
      ['get', '/crm/v3/properties/{objectType}/{propertyName}'],
    ],
  },
  'associations.json': {
    path: 'PublicApiSpecs/CRM/Associations/Rollouts/130902/v4/associations.json',
    operations: [
      ['post', '/crm/v4/associations/{fromObjectType}/{toObjectType}/batch/create'],
      ['post', '/crm/v4/associations/{fromObjectType}/{toObjectType}/batch/associate/default'],
    ],
  },
  'lists.json': {
    path: 'PublicApiSpecs/CRM/Lists/Rollouts/144891/v3/lists.json',
    operations: [
      ['post', '/crm/v3/lists'],
      ['get', '/crm/v3/lists/object-type-id/{objectTypeId}/name/{listName}'],
      ['put', '/crm/v3/lists/{listId}/memberships/add-and-remove'],
      ['get', '/crm/v3/lists/{listId}/memberships'],
    ],
  },
  'account-info.json': {
    path: 'PublicApiSpecs/Account/Account Info/Rollouts/144923/v3/accountInfo.json',
    operations: [['get', '/account-info/v3/details']],
  },
};

/**
 * Where HubSpot's published spec and its own guide disagree, the spec is widened to what the guide documents, and
 * the widening is named in the schema (`x-widened`). The CRM search guide sorts by `{propertyName, direction}`
 * objects; the spec types a sort as a string, a form whose meaning the guide never states.
 */
const WIDENED: Record<string, { schema: string; property: string; items: Json; why: string }[]> = {
  'contacts.json': [
    {
      schema: 'PublicObjectSearchRequest',
      property: 'sorts',
      items: {
        oneOf: [
          { type: 'string' },
          {
            type: 'object',
            required: ['propertyName'],
            properties: {
              propertyName: { type: 'string' },
              direction: { type: 'string', enum: ['ASCENDING', 'DESCENDING'] },
            },
          },
        ],
      },
      why: 'developers.hubspot.com/docs/api/crm/search: "sorts": [{"propertyName", "direction"}]',
    },
  ],
};

function widen(spec: Record<string, Json>, file: string): void {
  for (const w of WIDENED[file] ?? []) {
    const schemas = (spec.components as Record<string, Record<string, Record<string, Json>>>).schemas;
    const property = (schemas?.[w.schema]?.properties as Record<string, Record<string, Json>> | undefined)?.[
      w.property
    ];
    if (property === undefined) throw new Error(`${file}: ${w.schema}.${w.property}: not in the spec`);
    property.items = w.items;
    property['x-widened'] = w.why;
  }
}

/** Lists' filter schemas refer to each other without end; a list we create carries no filter. */
const STUBBED = /Filter|Branch/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function refsIn(value: Json, out: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.add(v.replace('#/components/', ''));
      else refsIn(v, out);
    }
}

function trim(spec: Record<string, Json>, operations: [string, string][], stub: boolean): Record<string, Json> {
  const paths: Record<string, Record<string, Json>> = {};
  for (const [method, path] of operations) {
    const item = (spec.paths as Record<string, Record<string, Json>>)[path];
    if (item?.[method] === undefined) throw new Error(`${method.toUpperCase()} ${path}: not in the spec`);
    paths[path] = { ...paths[path], [method]: item[method] };
  }
  const all = spec.components as Record<string, Record<string, Json>>;
  const kept: Record<string, Record<string, Json>> = {};
  const waiting = new Set<string>();
  refsIn(paths as Json, waiting);
  while (waiting.size > 0) {
    const [ref] = waiting as unknown as [string];
    waiting.delete(ref);
    const [kind = '', name = ''] = ref.split('/');
    if (kept[kind]?.[name] !== undefined) continue;
    const found = all[kind]?.[name];
    if (found === undefined) throw new Error(`#/components/${ref}: not in the spec`);
    kept[kind] = kept[kind] ?? {};
    if (stub && kind === 'schemas' && STUBBED.test(name)) {
      kept[kind][name] = { type: 'object', description: 'stubbed by trim-specs.ts: a recursive filter schema' };
      continue;
    }
    kept[kind][name] = found;
    refsIn(found, waiting);
  }
  const components = Object.fromEntries(
    Object.entries(kept).map(([kind, byName]) => [
      kind,
      Object.fromEntries(Object.entries(byName).sort(([a], [b]) => a.localeCompare(b))),
    ]),
  );
  return { openapi: spec.openapi!, info: spec.info!, servers: spec.servers ?? [], paths, components };
}

function main(repo: string): void {
  const git = (...args: string[]): string =>
    execFileSync('git', [`--git-dir=${join(repo, '.git')}`, ...args], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  const bare = (...args: string[]): string =>
    execFileSync('git', [`--git-dir=${repo}`, ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  let read = git;
  try {
    git('rev-parse', 'HEAD');
  } catch {
    read = bare;
  }
  const commit = read('rev-parse', 'HEAD').trim();
  for (const [file, source] of Object.entries(SPECS)) {
    const spec = JSON.parse(read('show', `${commit}:${source.path}`)) as Record<string, Json>;
    const trimmed = trim(spec, source.operations, file === 'lists.json');
    widen(trimmed, file);
    (trimmed.info as Record<string, Json>)['x-source'] = { repository: REPOSITORY, path: source.path, commit };
    writeFileSync(join(import.meta.dirname, 'specs', file), `${JSON.stringify(trimmed, null, 2)}\n`);
    const schemas = Object.keys((trimmed.components as Record<string, object>).schemas ?? {}).length;
    console.log(`${file}: ${source.operations.length} operations, ${schemas} schemas`);
  }
}

if (process.argv[1]?.endsWith('trim-specs.ts')) main(process.argv[2] ?? '.');
