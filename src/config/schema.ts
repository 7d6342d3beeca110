/**
 * The config file's shape (docs/contract.md "Config file"), as zod schemas. Every object is strict (unknown keys
 * are errors) except the inside of `filter`, which is the API request body and is passed through as written.
 * Rules that relate several fields live in cross-checks.ts; this file holds only what a single field can say.
 */
import { z } from 'zod';
// The destination types and their config blocks are the crm layer's (one port per CRM, listed in its registry; the
// port modules hold no client). Likewise the one list of transforms, owned by the mapping code that applies them.
import type { DestinationConfig, DestinationPort, DestinationSchema } from '../crm/destination-port.js';
import { destinationPorts, matchFieldDefaults } from '../crm/destinations.js';
import { TRANSFORMS } from '../crm/transforms.js';
import { httpUrl, isSecretField, nonEmpty, nonNegInt, posInt, secret } from './config-fields.js';
import { suppressPathsSchema, suppressSchema } from './suppress-settings.js';

/** The six person segments of the `view` query parameter (spec "Person record segments"). */
const PERSON_SEGMENTS = ['demographics', 'contacts', 'education', 'pastCompanies', 'skills', 'events'] as const;
export type PersonSegment = (typeof PERSON_SEGMENTS)[number];

const include = z.looseObject({ include: z.array(nonEmpty).min(1).optional(), exclude: z.array(nonEmpty).optional() });
const intRange = z.looseObject({ gte: nonNegInt.optional(), lte: nonNegInt.optional() });
const numRange = z.looseObject({ gte: z.number().nonnegative().optional(), lte: z.number().nonnegative().optional() });

/** Company filter: the keys the spec (and docs/api-assumptions.md) shows are typed; other keys pass through. */
const companyFilter = z.looseObject({
  industry: include.optional(),
  location: z
    .looseObject({ type: nonEmpty.optional(), country: include.optional(), region: include.optional() })
    .optional(),
  headcount: intRange.optional(),
  revenue: numRange.optional(),
  foundedYear: intRange.optional(),
  technologies: include.optional(),
});

/** Person filter keys are "not shown" by the spec: checked only for being an object. */
const personFilter = z.looseObject({});

const sortField = z.strictObject({ field: z.enum(['headcount', 'revenue']), direction: z.enum(['ASC', 'DESC']) });
const filterOptions = z.looseObject({ sortFields: z.array(sortField).min(1).optional() });

const filterSchema = z
  .strictObject({
    company: companyFilter.optional().describe('company filter: the keys the API documents are checked'),
    person: personFilter.optional().describe('person filter (persons searches only): any object'),
    options: filterOptions.optional().describe('request options; sortFields only with mode: offset'),
  })
  .describe('the API request body, sent as written on every page (docs/configuration.md, "filter")');

const cronSchedule = z.strictObject({
  cron: nonEmpty.describe('5 or 6 field cron pattern'),
  timezone: nonEmpty.optional().describe('IANA time zone, e.g. Europe/Berlin'),
});
const everySchedule = z.strictObject({
  every: z.union([posInt, nonEmpty]).describe('interval: milliseconds, or <n>ms|s|m|h|d such as 30m, 1h, 1d'),
});

const overwrite = z
  .enum(['always', 'ifEmpty', 'never'])
  .default('always')
  .describe('ifEmpty: fill only empty CRM fields; never: set on create only');

const fieldMapping = z.union([
  nonEmpty.describe('record path'),
  z.strictObject({
    from: nonEmpty.describe('record path'),
    transform: z.enum(TRANSFORMS).optional().describe('converts the value on its way (src/crm/transforms.ts)'),
    overwrite,
  }),
  z.strictObject({
    value: z
      .union([nonEmpty, z.number(), z.boolean()])
      .describe('constant written to every record (with overwrite: never, on create only)'),
    overwrite,
  }),
]);

/** Above this share of the records a run sent, CRM refusals fail the run (docs/runs.md "Honest outcomes"). */
const failAbove = z
  .number()
  .min(0)
  .max(1)
  .describe(
    'the run fails when the CRM (or the mapping) refused more than this share of the records it tried to write',
  );

/** Names of searches (the BullMQ scheduler id) and destinations. */
const SEARCH_NAME = /^[a-z0-9][a-z0-9_-]*$/;
const slug = z.string().regex(SEARCH_NAME, 'must match [a-z0-9][a-z0-9-_]*').max(64);

/** `object`'s help text: the objects each registered CRM writes, per entity. */
function objectDescription(): string {
  const objects = destinationPorts().map(
    (p) => `${p.type}: ${p.objects.companies.join('|')} (companies), ${p.objects.persons.join('|')} (persons)`,
  );
  return `the CRM object written; ${objects.join('; ')}`;
}

/** `matchOn.field`'s help text: which destination key gives a default, per destination type that has one. */
function matchFieldDescription(): string {
  const defaults = matchFieldDefaults().map(({ type, key }) => `a ${type} destination's ${key}`);
  return defaults.length === 0 ? 'CRM unique field' : `CRM unique field; defaults to ${defaults.join(' or ')}`;
}

const leaveConfirmRuns = posInt.describe(
  'a record counts as left after it is absent from this many consecutive complete runs',
);
const leaveMaxShare = z
  .number()
  .min(0)
  .max(1)
  .describe(
    "leavers are not acted on when the matches fell by more than this share since the guard's baseline (or to 0)",
  );
const onLeaveSchema = z
  .union([
    z.literal('nothing'),
    z.literal('removeFromList'),
    z.literal('archive'),
    z.strictObject({
      setFields: z
        .record(nonEmpty, z.union([z.string(), z.number(), z.boolean(), z.null()]))
        .refine((f) => Object.keys(f).length > 0, 'needs at least one field')
        .describe(
          'CRM fields written on each confirmed leaver by its match key; the value "$now" is the time of the run',
        ),
    }),
  ])
  .default('nothing')
  .describe(
    "what happens to a record that left the search: removeFromList (needs list:) takes it out of the search's list; " +
      'archive (never a default) archives it on HubSpot, deletes it on Salesforce; setFields writes fields on it ' +
      '(docs/mirror.md)',
  );

const refreshMode = z
  .enum(['changed', 'full'])
  .describe(
    'changed: re-count the partitions of the last complete walk (free) and walk only those whose count changed, ' +
      'new ones and the stalest share; full: walk every partition every run',
  );
const refreshMaxAgeDays = posInt.describe(
  'changed mode: every partition is walked at least once in this many days, spread over the runs of the interval',
);
const refreshMaxCounts = posInt.describe(
  'changed mode: count requests one run may spend re-counting (and the first walk splitting): bounds the number ' +
    'of partitions',
);
/**
 * `refresh:` keys as a search writes them (each optional: the source block's value, else its default, fills the rest).
 */
const refreshOverrides = z.strictObject({
  mode: refreshMode.optional(),
  maxAgeDays: refreshMaxAgeDays.optional(),
  maxCounts: refreshMaxCounts.optional(),
});

const savedSearchSchema = () =>
  z.strictObject({
    name: slug.describe('unique; the id of its job scheduler'),
    segment: nonEmpty.describe('your label; reveal.contactsAllowedSegments is keyed on it'),
    entity: z.enum(['companies', 'persons']).describe('what the search finds'),
    filter: filterSchema,
    view: z
      .array(z.enum(PERSON_SEGMENTS))
      .min(1)
      .optional()
      .describe('persons only: the record segments fetched; contacts (paid) needs an allowed segment and credit caps'),
    schedule: z
      .union([cronSchedule, everySchedule])
      .optional()
      .describe('when the scheduler runs the search; absent: manual runs only'),
    maxRecords: posInt
      .optional()
      .describe('distinct records per run: a run that reaches it ends completed with limitedBy: max_records'),
    priority: z
      .int()
      .default(0)
      .describe('with source.tokens.pace: a higher number is served first from the token allotment'),
    mode: z
      .enum(['cursor', 'offset'])
      .default('cursor')
      .describe('offset: top-N, needs filter.options.sortFields and maxRecords <= 10,000 + pageSize'),
    onShortfall: z
      .enum(['stop', 'refuse'])
      .default('stop')
      .describe(
        'when the budget cannot cover the run: stop = spend up to the binding cap and end partial; refuse = ' +
          'fetch nothing',
      ),
    allowPartial: z
      .boolean()
      .optional()
      .describe('deprecated and ignored: runs stop at the binding cap by default; see onShortfall'),
    destination: nonEmpty.describe('a key of destinations'),
    object: nonEmpty.describe(objectDescription()),
    matchOn: z.strictObject({
      field: nonEmpty.optional().describe(matchFieldDescription()),
      from: nonEmpty.describe('record path whose value goes into the match field'),
    }),
    fields: z
      .record(nonEmpty, fieldMapping)
      .describe('CRM field -> what is written to it: a record path, a mapping or a constant'),
    associate: z
      .strictObject({
        company: z.strictObject({ from: nonEmpty.describe("record path of the person's company id") }),
      })
      .optional()
      .describe('persons only: links the CRM record to its company'),
    rejects: z
      .strictObject({ failAbove: failAbove.optional() })
      .optional()
      .describe('overrides the top-level rejects settings for this search'),
    list: z
      .strictObject({ name: nonEmpty.describe('found by name (case-insensitive) or created') })
      .optional()
      .describe("a CRM list of the search's members: a HubSpot manual list, a Salesforce campaign (docs/mirror.md)"),
    onLeave: onLeaveSchema,
    leave: z
      .strictObject({ confirmRuns: leaveConfirmRuns.optional(), maxShare: leaveMaxShare.optional() })
      .optional()
      .describe('overrides the top-level leave settings for this search'),
    refresh: refreshOverrides
      .optional()
      .describe('overrides source.refresh for this search, key by key (docs/refresh.md)'),
    suppress: suppressSchema
      .optional()
      .describe('persons this search never reveals nor writes, besides the top-level suppress: lists'),
    suppressed: z
      .enum(['nothing', 'archive'])
      .default('nothing')
      .describe(
        "what happens to a member of the search's mirror found suppressed: it leaves at once, and nothing is done to " +
          'its CRM record (no onLeave); archive archives it as onLeave: archive does (docs/data-protection.md)',
      ),
    after: z
      .array(slug)
      .min(1)
      .optional()
      .describe(
        'searches this one runs after their last complete run: while one has a run coming or never completed for the ' +
          'CRM instance (portal/org) this search writes to, it waits',
      ),
  });

const byEntity = (companies: string, persons: string, what: string) =>
  z
    .strictObject({
      companies: nonEmpty.default(companies).describe(`path of the companies ${what}, relative to baseUrl`),
      persons: nonEmpty.default(persons).describe(`path of the persons ${what}, relative to baseUrl`),
    })
    .prefault({});

/** API paths relative to `baseUrl`; the same shape as the source client's `ApiPaths` (docs/api-assumptions.md). */
const sourcePathsSchema = z.strictObject({
  search: byEntity('/companies/filter', '/persons/filter', 'search'),
  count: byEntity('/companies/filter/count', '/persons/filter/count', 'count'),
  dictionaries: z
    .string()
    .regex(/\{name\}/, 'must contain {name}')
    .default('/dictionaries/{name}')
    .describe("path of a dictionary; {name} is the dictionary's name"),
  settings: z
    .strictObject({
      compliance: nonEmpty.default('/settings/compliance').describe('path of the compliance settings (account)'),
      personalization: nonEmpty
        .default('/settings/personalization')
        .describe('path of the personalization settings (account)'),
      intentTopics: nonEmpty.default('/settings/intent-topics').describe('path of the intent topics (account)'),
    })
    .prefault({}),
  health: nonEmpty.default('/health').describe("path of the API's health probe (/readyz)"),
});

const fallbackLimit = posInt.default(500).describe('requests per window of this operation');

const sourceSchema = z.strictObject({
  baseUrl: httpUrl.describe("the API's base URL; may carry a path prefix (https://host/api/v2)"),
  auth: z.strictObject({
    tokenUrl: httpUrl.describe('OAuth2 client-credentials token endpoint'),
    clientId: nonEmpty.describe('OAuth2 client id'),
    clientSecret: secret.describe('OAuth2 client secret'),
  }),
  fallbackLimits: z
    .strictObject({
      search: fallbackLimit,
      count: fallbackLimit,
      dictionary: fallbackLimit,
      windowSeconds: posInt.default(60).describe('the window of the fallback limits, in seconds'),
    })
    .prefault({})
    .describe('used only when RateLimit-* headers are absent'),
  tokens: z
    .strictObject({
      reserve: nonNegInt.default(0).describe('the search-token balance is never spent below this'),
      pace: z
        .boolean()
        .default(false)
        .describe(
          'delay a queued run that would leave less than the searches of higher priority need until the token reset ' +
            '(status delayed, stopReason paced; trigger --force runs it)',
        ),
    })
    .prefault({}),
  credits: z
    .strictObject({
      maxPerRun: nonNegInt.default(0).describe('contact-reveal credits one run may spend; 0: none'),
      maxPerDay: nonNegInt.default(0).describe('contact-reveal credits the account may spend per UTC day; 0: none'),
    })
    .prefault({})
    .describe('contact-reveal credit caps; 0 = no credits may be spent: a contacts search needs both set'),
  refresh: z
    .strictObject({
      mode: refreshMode.default('full'),
      maxAgeDays: refreshMaxAgeDays.default(14),
      maxCounts: refreshMaxCounts.default(500),
    })
    .prefault({})
    .describe('how runs spend tokens: every search, unless its own refresh: block says otherwise'),
  paths: sourcePathsSchema.prefault({}),
  idField: nonEmpty.default('id').describe('record path of the record id'),
  pageSize: z.int().min(1).max(100).default(100).describe("records per page (the API's limit parameter)"),
  parallelism: z
    .union([z.literal('auto'), posInt.max(256)])
    .default('auto')
    .describe(
      'upper bound of partition journeys walked at once per run (auto: 256); the run sizes itself below it from ' +
        'the search limit and page latency (docs/runs.md, "Journeys in flight")',
    ),
  maxJourneyRecords: posInt
    .max(100_000)
    .default(90_000)
    .describe("records per cursor journey before the filter is partitioned (at most the API's depth)"),
  requestTimeoutMs: posInt
    .default(30_000)
    .describe(
      'deadline of one API or token request (headers and whole answer); then it is retried. Answers are read up ' +
        'to 16 MiB (token answers 64 KiB)',
    ),
});

/** Optional webhook alerts (src/alerts/): each rule fires once per state change and once on recovery. */
const alertsSchema = z.strictObject({
  webhook: z.strictObject({
    // A secret: Slack incoming-webhook URLs hold a token. http(s) only: a file: or other scheme is never posted to.
    url: httpUrl.meta({ secret: true }).describe('where alerts are POSTed: an http(s) URL, from ${VAR} only'),
    payload: z.enum(['slack', 'json']).optional().describe('default: slack for hooks.slack.com, else json'),
  }),
  evaluateEverySeconds: posInt
    .default(60)
    .describe('how often the run history is evaluated (also on every finished run)'),
  runFailed: z.boolean().default(true).describe('alert when the last run of a search failed'),
  warningsAbove: nonNegInt.optional().describe('alert when a run completed with more warnings than this'),
  rejectsShareAbove: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('alert when a run rejected more than this share of its records'),
  tokensBelow: nonNegInt.optional().describe('alert when the search-token balance is below this'),
  creditsLeftTodayBelow: nonNegInt
    .optional()
    .describe("alert when today's credits left under source.credits.maxPerDay are below this"),
  staleAfterPeriods: posInt
    .optional()
    .describe('alert when a scheduled search has not completed for this many schedule periods'),
  tokensExhaustBeforeReset: z
    .boolean()
    .optional()
    .describe(
      'alert when, at the pace of recent runs, the scheduled searches use up the search tokens before the reset ' +
        '(plan --all)',
    ),
});

type Ports = readonly DestinationPort[];

/** One destination block: the branch of its `type` among the registered CRMs (`src/crm/destinations.ts`). */
function destinationSchema(ports: Ports): z.ZodType<DestinationConfig> {
  // Never empty: the registry starts with the built-in CRMs and removes only what was added.
  const branches = ports.map((p): DestinationSchema => p.configSchema) as [DestinationSchema, ...DestinationSchema[]];
  return z.discriminatedUnion('type', branches) as unknown as z.ZodType<DestinationConfig>;
}

const buildConfigSchema = (ports: Ports) =>
  z.strictObject({
    source: sourceSchema,
    destinations: z
      .record(slug, destinationSchema(ports))
      .describe('the CRMs records land in, by name; type picks the CRM (its block: src/crm/<crm>/destination.ts)'),
    reveal: z
      .strictObject({
        contactsAllowedSegments: z
          .array(nonEmpty)
          .default([])
          .describe('only searches whose segment is listed may use view: [contacts]'),
        refreshAfterDays: posInt
          .default(180)
          .describe("a person's contacts are revealed (paid) again after this many days (docs/reveals.md)"),
        logDays: posInt
          .default(400)
          .describe('days each paid reveal (person id, search, segment, run, time) is kept in the reveal log'),
      })
      .prefault({}),
    suppress: suppressSchema.extend({ paths: suppressPathsSchema }).prefault({}),
    searches: z.array(savedSearchSchema()).min(1).describe('the saved searches'),
    rejects: z.strictObject({ failAbove: failAbove.default(0.5) }).prefault({}),
    leave: z
      .strictObject({ confirmRuns: leaveConfirmRuns.default(2), maxShare: leaveMaxShare.default(0.1) })
      .prefault({}),
    worker: z
      .strictObject({ concurrency: posInt.default(2).describe('sync jobs one worker process runs at once') })
      .prefault({}),
    server: z
      .strictObject({
        port: z.int().min(0).max(65_535).default(3000).describe('port of the dashboard, /metrics, /healthz, /readyz'),
        host: nonEmpty.default('127.0.0.1').describe('address the dashboard binds'),
        auth: z
          .strictObject({
            username: nonEmpty.describe("the dashboard's basic-auth user"),
            password: secret.describe("the dashboard's basic-auth password"),
          })
          .optional(),
        // bull-board acts on jobs and queues (add, retry, remove, pause, obliterate) only when this is true.
        adminActions: z.boolean().default(false).describe('true: bull-board at /admin/queues may act; else read-only'),
        // The /runs pages' "Run now" and "Full resync" buttons; absent: shown exactly when adminActions is true.
        runActions: z
          .boolean()
          .optional()
          .describe('the /runs pages show "Run now" and "Full resync"; absent: as adminActions'),
        // Absent: /metrics needs server.auth whenever it is set.
        metricsAuth: z
          .boolean()
          .optional()
          .describe(
            'false: /metrics answers without server.auth (default: it needs it whenever auth is set; ' +
              'METRICS_AUTH overrides)',
          ),
      })
      .prefault({}),
    alerts: alertsSchema.optional(),
  });

let built: { ports: Ports; schema: ReturnType<typeof buildConfigSchema> } | undefined;

/** The config file's schema for the destination types registered now (built again when that list changes). */
export function configSchema(): ReturnType<typeof buildConfigSchema> {
  const ports = destinationPorts();
  if (built?.ports !== ports) built = { ports, schema: buildConfigSchema(ports) };
  return built.schema;
}

/** What the schema alone yields, before cross-checks resolve defaults that depend on other sections. */
export type ParsedConfig = z.output<ReturnType<typeof buildConfigSchema>>;
type ParsedSearch = ParsedConfig['searches'][number];

/** A saved search after loading: `matchOn.field` is always resolved. */
export type SavedSearch = Omit<ParsedSearch, 'matchOn'> & { matchOn: { field: string; from: string } };
export type AppConfig = Omit<ParsedConfig, 'searches'> & { searches: SavedSearch[] };
export type SourceConfig = AppConfig['source'];
export type SourcePaths = SourceConfig['paths'];
export type { DestinationConfig };
export type SearchFilter = SavedSearch['filter'];
export type FieldMapping = SavedSearch['fields'][string];
export type ServerConfig = AppConfig['server'];
export type WorkerConfig = AppConfig['worker'];
export type AlertsConfig = NonNullable<AppConfig['alerts']>;

/** Config paths whose values are secrets: they must come from ${VAR} and are never echoed. */
export function isSecretPath(path: readonly (string | number)[]): boolean {
  const [section, second, third] = path;
  if (path.length !== 3) return false;
  if (section === 'alerts') return second === 'webhook' && third === 'url';
  if (section === 'source') return second === 'auth' && third === 'clientSecret';
  if (section === 'destinations')
    return destinationPorts().some((p) =>
      isSecretField(p.configSchema.shape[third as string] as z.ZodType | undefined),
    );
  return section === 'server' && second === 'auth' && third === 'password';
}
