/**
 * `validate --online`: filter values checked against the API's dictionaries (the exact values filters accept), and
 * each search's filter asked to the API itself (one free count); a refusal is reported at the lines it names.
 */
import { closestValue } from './closest-value.js';
import type { ConfigIssue } from './config-error.js';
import type { LoadedConfig } from './load-config.js';
import { formatPath, valueAt, type ConfigPath } from './yaml-tree.js';

/** The values a dictionary holds (industry, country, region, department, seniority, technology). */
export type DictionaryLookup = (name: string) => Promise<readonly string[]>;

/** Filter paths (below `filter`) whose list values come from a dictionary (spec + docs/api-assumptions.md). */
const DICTIONARY_FIELDS: readonly { path: readonly string[]; dictionary: string }[] = [
  { path: ['company', 'industry'], dictionary: 'industry' },
  { path: ['company', 'location', 'country'], dictionary: 'country' },
  { path: ['company', 'location', 'region'], dictionary: 'region' },
  { path: ['company', 'technologies'], dictionary: 'technology' },
  { path: ['person', 'seniority'], dictionary: 'seniority' },
  { path: ['person', 'department'], dictionary: 'department' },
  { path: ['person', 'location', 'country'], dictionary: 'country' },
  { path: ['person', 'location', 'region'], dictionary: 'region' },
];

/** Every include/exclude value of every search's filter that its dictionary does not hold. */
export async function checkFilterValues(loaded: LoadedConfig, lookup: DictionaryLookup): Promise<ConfigIssue[]> {
  const cache = new Map<string, Promise<Set<string>>>();
  const values = (name: string): Promise<Set<string>> => {
    let entry = cache.get(name);
    if (!entry) {
      entry = lookup(name).then((list) => new Set(list));
      cache.set(name, entry);
    }
    return entry;
  };
  const issues: ConfigIssue[] = [];
  for (const [index, search] of loaded.config.searches.entries()) {
    for (const field of DICTIONARY_FIELDS) {
      for (const op of ['include', 'exclude']) {
        const list = valueAt(search.filter, [...field.path, op]);
        if (!Array.isArray(list)) continue;
        const known = await values(field.dictionary);
        list.forEach((value, i) => {
          if (typeof value === 'string' && known.has(value)) return;
          const path: ConfigPath = ['searches', index, 'filter', ...field.path, op, i];
          issues.push({
            file: loaded.file,
            ...loaded.locate(path),
            path: formatPath(path),
            message:
              `'${String(value)}' is not in the ${field.dictionary} dictionary${didYouMean(value, known)} ` +
              `(prospect-sync values ${field.dictionary} lists them)`,
          });
        });
      }
    }
  }
  return issues;
}

function didYouMean(value: unknown, known: Set<string>): string {
  const closest = typeof value === 'string' ? closestValue(value, known) : undefined;
  return closest === undefined ? '' : `; did you mean '${closest}'?`;
}

/** A problem the API found in a request body: a dot path into it (`person.seniorty`, `company.industry.include[2]`). */
export interface BodyProblem {
  path?: string;
  message: string;
}

/** `a.b[2]` -> ['a', 'b', 2]. */
function bodyPath(path: string): (string | number)[] {
  return path
    .split('.')
    .filter((part) => part.length > 0)
    .flatMap((part) => {
      const [key = '', ...indexes] = part.split('[');
      return [...(key ? [key] : []), ...indexes.map((i) => Number.parseInt(i, 10))];
    });
}

/** The API's refusal of search `index`'s filter, at the lines of the keys and values it names. */
export function filterIssues(loaded: LoadedConfig, index: number, problems: readonly BodyProblem[]): ConfigIssue[] {
  return problems.map((problem) => {
    const path: ConfigPath = ['searches', index, 'filter', ...bodyPath(problem.path ?? '')];
    return {
      file: loaded.file,
      ...loaded.locate(path, 'key'),
      path: formatPath(path),
      message: `the API refused the filter: ${problem.message}`,
    };
  });
}

/**
 * Each search's filter as the API sees it: `ask(index)` sends it once (a count: no token) and answers the problems of a
 * refusal (none when accepted). A value the dictionary check already reported is not reported twice.
 */
export async function checkFilterBodies(
  loaded: LoadedConfig,
  ask: (index: number) => Promise<readonly BodyProblem[]>,
  reported: readonly ConfigIssue[] = [],
): Promise<ConfigIssue[]> {
  const known = new Set(reported.map((issue) => issue.path));
  const issues: ConfigIssue[] = [];
  for (const index of loaded.config.searches.keys())
    issues.push(...filterIssues(loaded, index, await ask(index)).filter((issue) => !known.has(issue.path)));
  return issues;
}
