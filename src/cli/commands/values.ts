/**
 * `values <dictionary> [--search text] [--json]`: what a filter field accepts (industry, country, region, technology,
 * seniority, department), read from the API's dictionary (cached for an hour, src/cli/dictionary-lookup.ts).
 * Exit 0; 2 for a dictionary the API does not know or a config error; 4 without Redis.
 */
import { SourceError, type DictionaryEntry } from '../../source/index.js';
import { printJson, type ConfigOption, type JsonOption } from '../command-context.js';
import { UsageError } from '../cli-errors.js';
import { withDictionaries } from '../dictionary-lookup.js';
import { EXIT } from '../exit-codes.js';

export interface ValuesOptions extends ConfigOption, JsonOption {
  search?: string;
}

/** The dictionaries filters use (src/config/online-check.ts reads the same ones). */
export const FILTER_DICTIONARIES = ['industry', 'country', 'region', 'technology', 'seniority', 'department'] as const;

function matching(entries: readonly DictionaryEntry[], text: string | undefined): DictionaryEntry[] {
  if (!text) return [...entries];
  const wanted = text.toLowerCase();
  return entries.filter(
    (e) => e.value.toLowerCase().includes(wanted) || (e.label ?? '').toLowerCase().includes(wanted),
  );
}

export async function runCommand(dictionary: string, opts: ValuesOptions): Promise<number> {
  let entries: DictionaryEntry[];
  try {
    entries = await withDictionaries(opts.config, (lookup) => lookup(dictionary));
  } catch (err) {
    if (err instanceof SourceError && err.status === 404) {
      throw new UsageError(
        `the API has no dictionary '${dictionary}' (filters use: ${FILTER_DICTIONARIES.join(', ')})`,
      );
    }
    throw err;
  }
  const shown = matching(entries, opts.search);
  if (opts.json) {
    printJson({ dictionary, values: shown });
    return EXIT.ok;
  }
  if (shown.length === 0) {
    process.stdout.write(
      `no value of the ${dictionary} dictionary contains '${opts.search ?? ''}' (${entries.length} values in all)\n`,
    );
    return EXIT.ok;
  }
  const width = Math.max(...shown.map((e) => e.value.length));
  const rows = shown.map((e) => (e.label && e.label !== e.value ? `${e.value.padEnd(width)}  ${e.label}` : e.value));
  process.stdout.write(`${rows.join('\n')}\n`);
  return EXIT.ok;
}
