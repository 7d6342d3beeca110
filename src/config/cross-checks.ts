/** Rules that relate several fields of the config; the schema has already checked each field alone. */
// CRM facts (objects per destination type, match-field defaults) are the crm layer's: asked, not repeated here.
import {
  archivesOf,
  defaultMatchField,
  listObjectsOf,
  matchFieldDefaults,
  objectsFor,
  objectsOf,
} from '../crm/destinations.js';
import type { AppConfig, ParsedConfig, SavedSearch } from './schema.js';
import { checkDeprecated } from './deprecations.js';
import { cronProblem, isValidTimezone, parseEvery } from './schedule.js';
import type { PathIssue } from './path-issue.js';
import { checkOrder } from './search-order.js';
import type { ConfigPath } from './yaml-tree.js';

/** The API's offset ceiling (spec "Pagination limits"): the last page may start at 10,000. */
const MAX_OFFSET = 10_000;

type ParsedSearch = ParsedConfig['searches'][number];

function checkRanges(filter: ParsedSearch['filter'], at: ConfigPath, issues: PathIssue[]): void {
  const company = filter.company;
  if (!company) return;
  for (const key of ['headcount', 'revenue', 'foundedYear'] as const) {
    const range = company[key];
    if (range?.gte !== undefined && range.lte !== undefined && range.gte > range.lte) {
      issues.push({ path: [...at, 'company', key], message: `gte (${range.gte}) must be <= lte (${range.lte})` });
    }
  }
}

function checkSchedule(search: ParsedSearch, at: ConfigPath, issues: PathIssue[]): void {
  const schedule = search.schedule;
  if (!schedule) return;
  if ('cron' in schedule) {
    const problem = cronProblem(schedule.cron);
    if (problem) issues.push({ path: [...at, 'schedule', 'cron'], message: problem });
    if (schedule.timezone !== undefined && !isValidTimezone(schedule.timezone)) {
      issues.push({ path: [...at, 'schedule', 'timezone'], message: `unknown time zone '${schedule.timezone}'` });
    }
  } else if (parseEvery(schedule.every) === undefined) {
    issues.push({
      path: [...at, 'schedule', 'every'],
      message: 'expected milliseconds or <n>ms|s|m|h|d such as 30m, 1h, 1d',
    });
  }
}

function checkOffsetMode(search: ParsedSearch, at: ConfigPath, pageSize: number, issues: PathIssue[]): void {
  const sortFields = search.filter.options?.sortFields;
  if (search.mode !== 'offset') {
    if (sortFields) {
      issues.push({
        path: [...at, 'filter', 'options', 'sortFields'],
        message: 'applies only in offset mode: add mode: offset',
      });
    }
    return;
  }
  if (!sortFields)
    issues.push({ path: [...at, 'mode'], message: 'offset mode is for top-N searches: set filter.options.sortFields' });
  // Written on the search itself it must mean it; the source block's mode simply does not apply to a top-N search.
  if (search.refresh?.mode === 'changed')
    issues.push({
      path: [...at, 'refresh', 'mode'],
      message: 'changed needs a partitioned walk: an offset search walks in full',
    });
  const ceiling = MAX_OFFSET + pageSize;
  if (search.maxRecords === undefined) {
    issues.push({ path: [...at, 'mode'], message: `offset mode needs maxRecords (at most ${ceiling})` });
  } else if (search.maxRecords > ceiling) {
    issues.push({
      path: [...at, 'maxRecords'],
      message:
        `offset mode reaches at most ${ceiling} records (offset <= ${MAX_OFFSET} + pageSize ${pageSize}); use ` +
        `cursor mode`,
    });
  }
}

/**
 * `view` and `associate` mean nothing for companies. The contract's own example (docs/contract.md) shows them on a
 * companies search (as annotations), so there they are dropped with a warning rather than refused.
 */
function checkPersonOnly(
  search: ParsedSearch,
  at: ConfigPath,
  config: ParsedConfig,
  issues: PathIssue[],
  warnings: PathIssue[],
): void {
  if (search.entity !== 'persons') {
    for (const key of ['view', 'associate'] as const) {
      if (search[key] !== undefined)
        warnings.push({ path: [...at, key], message: 'ignored: only for entity: persons', at: 'key' });
    }
    if (search.filter.person !== undefined)
      issues.push({ path: [...at, 'filter', 'person'], message: 'only for entity: persons' });
    return;
  }
  const view = search.view ?? [];
  const seen = new Set<string>();
  view.forEach((segment, index) => {
    if (seen.has(segment)) issues.push({ path: [...at, 'view', index], message: `segment '${segment}' listed twice` });
    seen.add(segment);
  });
  if (!seen.has('contacts')) return;
  const allowed = config.reveal.contactsAllowedSegments;
  if (!allowed.includes(search.segment)) {
    issues.push({
      path: [...at, 'view', view.indexOf('contacts')],
      message:
        `contacts may be revealed only for segments in reveal.contactsAllowedSegments [${allowed.join(', ')}]; ` +
        `segment '${search.segment}' is not`,
    });
  } else if (config.source.credits.maxPerRun === 0 || config.source.credits.maxPerDay === 0) {
    issues.push({
      path: [...at, 'view', view.indexOf('contacts')],
      message: 'contacts cost credits but source.credits.maxPerRun or maxPerDay is 0 (the default): set both caps',
    });
  }
}

/** The issue of a search with no match field: required, unless a destination key (of some CRM) gives a default. */
function matchFieldRequired(): string {
  const keys = matchFieldDefaults().map(({ type, key }) => `set ${key} on a ${type} destination`);
  return keys.length === 0 ? 'required' : `required (or ${keys.join(' or ')})`;
}

/** `list:` needs a destination whose lists hold the search's object; `onLeave: removeFromList` needs `list:`. */
function checkList(search: ParsedSearch, at: ConfigPath, type: string, issues: PathIssue[]): void {
  if (search.onLeave === 'removeFromList' && search.list === undefined)
    issues.push({ path: [...at, 'onLeave'], message: 'removeFromList needs a list: {name: ...} on the search' });
  if (search.list === undefined) return;
  const holds = listObjectsOf(type);
  if (holds.length === 0) issues.push({ path: [...at, 'list'], message: `${type} destinations have no lists` });
  else if (!holds.includes(search.object))
    issues.push({ path: [...at, 'list'], message: `${type} lists hold ${holds.join(' | ')}, not ${search.object}` });
}

/** Checks `search` against its destination and resolves `matchOn.field`; undefined when it cannot be resolved. */
function checkDestination(
  search: ParsedSearch,
  at: ConfigPath,
  config: ParsedConfig,
  issues: PathIssue[],
): string | undefined {
  const destination = config.destinations[search.destination];
  if (!destination) {
    const known = Object.keys(config.destinations).join(', ');
    issues.push({
      path: [...at, 'destination'],
      message: `unknown destination '${search.destination}' (defined: ${known || 'none'})`,
    });
    return search.matchOn.field;
  }
  const all = objectsOf(destination.type);
  const fitting = objectsFor(destination.type, search.entity);
  if (!all.includes(search.object)) {
    issues.push({ path: [...at, 'object'], message: `${destination.type} objects are ${all.join(' | ')}` });
  } else if (!fitting.includes(search.object)) {
    issues.push({
      path: [...at, 'object'],
      message: `${search.entity} land in ${fitting.join(' | ')} on ${destination.type}`,
    });
  }
  checkList(search, at, destination.type, issues);
  if (search.onLeave === 'archive' && !archivesOf(destination.type))
    issues.push({
      path: [...at, 'onLeave'],
      message: `${destination.type} destinations cannot archive records: pick nothing, removeFromList or setFields`,
    });
  if (search.suppressed === 'archive' && !archivesOf(destination.type))
    issues.push({
      path: [...at, 'suppressed'],
      message: `${destination.type} destinations cannot archive records: suppressed: nothing`,
    });
  if (search.suppress?.crm !== undefined && search.entity !== 'persons')
    issues.push({
      path: [...at, 'suppress', 'crm'],
      message: 'opt-outs are read from person records: suppress.crm needs entity: persons',
    });
  const field = search.matchOn.field ?? defaultMatchField(destination);
  if (field === undefined) {
    issues.push({ path: [...at, 'matchOn', 'field'], message: matchFieldRequired() });
  }
  return field;
}

export interface CrossCheckResult {
  issues: PathIssue[];
  warnings: PathIssue[];
  /**
   * The config with `matchOn.field` resolved and person-only keys dropped from companies searches; undefined on issues.
   */
  config: AppConfig | undefined;
}

/** All cross-field problems and warnings, and the finished config when there are no problems. */
export function crossCheck(config: ParsedConfig): CrossCheckResult {
  const issues: PathIssue[] = [];
  const warnings: PathIssue[] = [];
  const firstByName = new Map<string, number>();
  const searches: SavedSearch[] = [];
  config.searches.forEach((search, index) => {
    const at: ConfigPath = ['searches', index];
    const first = firstByName.get(search.name);
    if (first !== undefined)
      issues.push({
        path: [...at, 'name'],
        message: `duplicate search name '${search.name}' (also searches[${first}])`,
      });
    else firstByName.set(search.name, index);
    checkRanges(search.filter, [...at, 'filter'], issues);
    checkSchedule(search, at, issues);
    checkOffsetMode(search, at, config.source.pageSize, issues);
    checkPersonOnly(search, at, config, issues, warnings);
    checkDeprecated(search, at, warnings);
    const field = checkDestination(search, at, config, issues);
    if (field === undefined) return;
    const personOnly = search.entity === 'persons' ? {} : { view: undefined, associate: undefined };
    searches.push({ ...search, ...personOnly, matchOn: { field, from: search.matchOn.from } });
  });
  checkOrder(config.searches, issues);
  return { issues, warnings, config: issues.length === 0 ? { ...config, searches } : undefined };
}
