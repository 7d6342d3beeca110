/** `validate --online`: filter values checked against the API's dictionaries (the exact values filters accept). */
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
            message: `'${String(value)}' is not in the ${field.dictionary} dictionary${didYouMean(value, known)} (prospect-sync values ${field.dictionary} lists them)`,
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
