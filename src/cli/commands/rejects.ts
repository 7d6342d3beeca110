/**
 * `rejects <search> [--limit n] [--all] [--json]`: records the CRM (or the mapping) refused. By default grouped by
 * the CRM's code and field, with a count and one example each (over every stored reject: the newest 1,000); `--all`
 * lists each reject (up to --limit), newest first; `--json` carries both the list and the groups.
 * Match keys and reasons only: reasons are redacted by the CRM layer so they never carry contact details.
 */
import { createRejectStore, groupLabel, groupRejects, MAX_REJECT_HISTORY, type RejectEntry } from '../../crm/index.js';
import {
  openSearchCommand,
  printJson,
  type ConfigOption,
  type JsonOption,
  type LimitOption,
} from '../command-context.js';
import { EXIT } from '../exit-codes.js';

export interface RejectsOptions extends ConfigOption, JsonOption, LimitOption {
  all?: boolean;
}

export async function runCommand(name: string, opts: RejectsOptions): Promise<number> {
  const cmd = await openSearchCommand(name, opts.config);
  try {
    const store = createRejectStore(cmd.redis, cmd.prefix);
    const stored = await store.list(cmd.search, { limit: MAX_REJECT_HISTORY });
    const rejects = stored.slice(0, opts.limit);
    const groups = groupRejects(stored);
    const pending = await store.pendingCount(cmd.search);
    if (opts.json) printJson({ search: cmd.search, pending, rejects, groups });
    else if (rejects.length === 0) process.stdout.write(`no rejected records for ${cmd.search}\n`);
    else {
      const lines = opts.all === true ? rejects.map(entryLine) : groupLines(groups, stored.length);
      // Nothing re-reads the retry set: a reject only drops the record's change hash, so whichever run fetches it
      // again sends it again. Keyless records cannot be matched at all, so they never are.
      lines.push(
        `${pending} rejected record(s) not accepted since; each is sent again when a run of ${cmd.search} ` +
          `fetches it again.`,
      );
      if (rejects.some((r) => r.keyless === true)) {
        lines.push(
          'entries shown as #<n> had no match key (matchOn.from): fix the data or the mapping; they are not retried.',
        );
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return EXIT.ok;
  } finally {
    cmd.close();
  }
}

function entryLine(r: RejectEntry): string {
  return `${r.at}  ${r.object}  ${r.key}  ${r.code}${r.field === undefined ? '' : ` [${r.field}]`}: ${r.reason}`;
}

function groupLines(groups: ReturnType<typeof groupRejects>, total: number): string[] {
  const width = String(groups[0]?.count ?? 0).length;
  return [
    `${total} stored reject(s) and failed link(s) by code and field (count, then one example; --all lists each, ` +
      `--json and the dashboard's CSV every entry):`,
    ...groups.map((g) => `${String(g.count).padStart(width)}  ${groupLabel(g)}  e.g. ${g.example}`),
  ];
}
