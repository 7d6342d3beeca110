/**
 * `rejects <search> [--limit n] [--json]`: records the CRM (or the mapping) refused, newest first, with the reason.
 * Match keys and reasons only: reasons are redacted by the CRM layer so they never carry contact details.
 */
import { createRejectStore } from '../../crm/index.js';
import { openSearchCommand, printJson, type ConfigOption, type JsonOption, type LimitOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';

export async function runCommand(name: string, opts: ConfigOption & JsonOption & LimitOption): Promise<number> {
  const cmd = await openSearchCommand(name, opts.config);
  try {
    const store = createRejectStore(cmd.redis, cmd.prefix);
    const rejects = await store.list(cmd.search, { limit: opts.limit });
    const pending = await store.pendingCount(cmd.search);
    if (opts.json) printJson({ search: cmd.search, pending, rejects });
    else if (rejects.length === 0) process.stdout.write(`no rejected records for ${cmd.search}\n`);
    else {
      const lines = rejects.map((r) => `${r.at}  ${r.object}  ${r.key}  ${r.code}: ${r.reason}`);
      // Nothing re-reads the retry set: a reject only drops the record's change hash, so whichever run fetches it
      // again sends it again. Keyless records cannot be matched at all, so they never are.
      lines.push(`${pending} rejected record(s) not accepted since; each is sent again when a run of ${cmd.search} fetches it again.`);
      if (rejects.some((r) => r.keyless === true)) {
        lines.push('entries shown as #<n> had no match key (matchOn.from): fix the data or the mapping; they are not retried.');
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    return EXIT.ok;
  } finally {
    cmd.close();
  }
}
