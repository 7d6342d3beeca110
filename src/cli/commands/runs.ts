/** `runs <search> [--limit n] [--json]`: the most recent run summaries of a search, newest first. Exit 0 (2 config). */
import { formatRunLine } from '../../runs/format-summary.js';
import { listRuns } from '../../runs/run-history.js';
import { openSearchCommand, printJson, type ConfigOption, type JsonOption, type LimitOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';

export async function runCommand(name: string, opts: ConfigOption & JsonOption & LimitOption): Promise<number> {
  const cmd = await openSearchCommand(name, opts.config);
  try {
    const runs = await listRuns(cmd.redis, cmd.search, { prefix: cmd.prefix, limit: opts.limit });
    if (opts.json) printJson({ search: cmd.search, runs });
    else if (runs.length === 0) process.stdout.write(`no runs of ${cmd.search} recorded yet\n`);
    else process.stdout.write(`${runs.map(formatRunLine).join('\n')}\n`);
    return EXIT.ok;
  } finally {
    cmd.close();
  }
}
