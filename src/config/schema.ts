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

const filterSchema = z.strictObject({
  company: companyFilter.optional(),
  person: personFilter.optional(),
  options: filterOptions.optional(),
});

const cronSchedule = z.strictObject({
  cron: nonEmpty.describe('5 or 6 field cron pattern'),
  timezone: nonEmpty.optional().describe('IANA time zone, e.g. Europe/Berlin'),
});
const everySchedule = z.strictObject({
  every: z.union([posInt, nonEmpty]).describe('interval: milliseconds, or <n>ms|s|m|h|d such as 30m, 1h, 1d'),
});

const fieldMapping = z.union([
  nonEmpty.describe('record path'),
  z.strictObject({
    from: nonEmpty.describe('record path'),
    transform: z.enum(TRANSFORMS).optional(),
    overwrite: z.enum(['always', 'ifEmpty', 'never']).default('always'),
  }),
  z.strictObject({
    value: z.union([nonEmpty, z.number(), z.boolean()]).describe('constant written to every record'),
    overwrite: z.enum(['always', 'ifEmpty', 'never']).default('always'),
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
    z.literal('removeFromList').describe("confirmed leavers are removed from the search's list (needs list:)"),
    z
      .literal('archive')
      .describe('confirmed leavers are archived (deleted where the CRM has no archive); never a default'),
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
  .describe('what happens to records that left the search (docs/runs.md, Mirror)');

const refreshMode = z
  .enum(['changed', 'full'])
  .describe(
    'changed: re-count the partitions of the last complete walk (free) and walk only those whose count changed, new ones and the stalest share; full: walk every partition every run',
  );
const refreshMaxAgeDays = posInt.describe(
  'changed mode: every partition is walked at least once in this many days, spread over the runs of the interval',
);
const refreshMaxCounts = posInt.describe(
  'changed mode: count requests one run may spend re-counting (and the first walk splitting): bounds the number of partitions',
);
/** `refresh:` keys as a search writes them (each optional: the source block's value, else its default, fills the rest). */
const refreshOverrides = z.strictObject({
  mode: refreshMode.optional(),
  maxAgeDays: refreshMaxAgeDays.optional(),
  maxCounts: refreshMaxCounts.optional(),
});

const savedSearchSchema = () =>
  z.strictObject({
    name: slug,
    segment: nonEmpty,
    entity: z.enum(['companies', 'persons']),
    filter: filterSchema,
    view: z.array(z.enum(PERSON_SEGMENTS)).min(1).optional(),
    schedule: z.union([cronSchedule, everySchedule]).optional(),
    maxRecords: posInt.optional(),
    priority: z
      .int()
      .default(0)
      .describe('with source.tokens.pace: a higher number is served first from the token allotment'),
    mode: z.enum(['cursor', 'offset']).default('cursor').describe('offset: top-N with filter.options.sortFields'),
    onShortfall: z
      .enum(['stop', 'refuse'])
      .default('stop')
      .describe(
        'when the budget cannot cover the run: stop = spend up to the binding cap and end partial; refuse = fetch nothing',
      ),
    allowPartial: z
      .boolean()
      .optional()
      .describe('deprecated and ignored: runs stop at the binding cap by default; see onShortfall'),
    destination: nonEmpty,
    object: nonEmpty,
    matchOn: z.strictObject({
      field: nonEmpty.optional().describe(matchFieldDescription()),
      from: nonEmpty.describe('record path'),
    }),
    fields: z.record(nonEmpty, fieldMapping),
    associate: z.strictObject({ company: z.strictObject({ from: nonEmpty }) }).optional(),
    rejects: z
      .strictObject({ failAbove: failAbove.optional() })
      .optional()
      .describe('overrides the top-level rejects settings for this search'),
    list: z
      .strictObject({ name: nonEmpty.describe('found by name (case-insensitive) or created') })
      .optional()
      .describe("a CRM list holding the search's members (docs/runs.md, Mirror)"),
    onLeave: onLeaveSchema,
    leave: z
      .strictObject({ confirmRuns: leaveConfirmRuns.optional(), maxShare: leaveMaxShare.optional() })
      .optional()
      .describe('overrides the top-level leave settings for this search'),
    refresh: refreshOverrides
      .optional()
      .describe('overrides source.refresh for this search, key by key (docs/runs.md, Refresh on change)'),
    after: z
      .array(slug)
      .min(1)
      .optional()
      .describe(
        'searches this one runs after: while one of them has a run queued or active, a run of this search waits',
      ),
  });

const byEntity = (companies: string, persons: string) =>
  z.strictObject({ companies: nonEmpty.default(companies), persons: nonEmpty.default(persons) }).prefault({});

/** API paths relative to `baseUrl`; the same shape as the source client's `ApiPaths` (docs/api-assumptions.md). */
const sourcePathsSchema = z.strictObject({
  search: byEntity('/companies/filter', '/persons/filter'),
  count: byEntity('/companies/filter/count', '/persons/filter/count'),
  dictionaries: z
    .string()
    .regex(/\{name\}/, 'must contain {name}')
    .default('/dictionaries/{name}'),
  settings: z
    .strictObject({
      compliance: nonEmpty.default('/settings/compliance'),
      personalization: nonEmpty.default('/settings/personalization'),
      intentTopics: nonEmpty.default('/settings/intent-topics'),
    })
    .prefault({}),
  health: nonEmpty.default('/health'),
});

const sourceSchema = z.strictObject({
  baseUrl: httpUrl,
  auth: z.strictObject({ tokenUrl: httpUrl, clientId: nonEmpty, clientSecret: secret }),
  fallbackLimits: z
    .strictObject({
      search: posInt.default(500),
      count: posInt.default(500),
      dictionary: posInt.default(500),
      windowSeconds: posInt.default(60),
    })
    .prefault({})
    .describe('used only when RateLimit-* headers are absent'),
  tokens: z
    .strictObject({
      reserve: nonNegInt.default(0),
      pace: z
        .boolean()
        .default(false)
        .describe(
          'delay a queued run that would leave less than the searches of higher priority need until the token reset',
        ),
    })
    .prefault({}),
  credits: z
    .strictObject({ maxPerRun: nonNegInt.default(0), maxPerDay: nonNegInt.default(0) })
    .prefault({})
    .describe('contact-reveal credit caps; 0 = no credits may be spent'),
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
  pageSize: z.int().min(1).max(100).default(100),
  parallelism: z
    .union([z.literal('auto'), posInt.max(256)])
    .default('auto')
    .describe(
      'upper bound of partition journeys walked at once per run; the run sizes itself below it from the search limit and page latency',
    ),
  maxJourneyRecords: posInt.max(100_000).default(90_000).describe('records per cursor journey before partitioning'),
  requestTimeoutMs: posInt
    .default(30_000)
    .describe('deadline of one API or token request (headers and whole answer); then it is retried'),
});

/** Optional webhook alerts (src/alerts/): each rule fires once per state change and once on recovery. */
const alertsSchema = z.strictObject({
  webhook: z.strictObject({
    // A secret: Slack incoming-webhook URLs hold a token. http(s) only: a file: or other scheme is never posted to.
    url: httpUrl.meta({ secret: true }),
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
      'alert when, at the pace of recent runs, the scheduled searches use up the search tokens before the reset (plan --all)',
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
    destinations: z.record(slug, destinationSchema(ports)),
    reveal: z
      .strictObject({
        contactsAllowedSegments: z.array(nonEmpty).default([]),
        refreshAfterDays: posInt
          .default(180)
          .describe("a person's contacts are revealed (paid) again after this many days"),
      })
      .prefault({}),
    searches: z.array(savedSearchSchema()).min(1),
    rejects: z.strictObject({ failAbove: failAbove.default(0.5) }).prefault({}),
    leave: z
      .strictObject({ confirmRuns: leaveConfirmRuns.default(2), maxShare: leaveMaxShare.default(0.1) })
      .prefault({}),
    worker: z.strictObject({ concurrency: posInt.default(2) }).prefault({}),
    server: z
      .strictObject({
        port: z.int().min(0).max(65_535).default(3000),
        host: nonEmpty.default('127.0.0.1'),
        auth: z.strictObject({ username: nonEmpty, password: secret }).optional(),
        // bull-board acts on jobs and queues (add, retry, remove, pause, obliterate) only when this is true.
        adminActions: z.boolean().default(false),
        // The /runs pages' "Run now" and "Full resync" buttons; absent: shown exactly when adminActions is true.
        runActions: z.boolean().optional(),
        // Absent: /metrics needs server.auth whenever it is set.
        metricsAuth: z.boolean().optional(),
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
