/** `runs <search> [--limit n] [--json]`: the most recent run summaries of a search, newest first. Exit 0 (2 config). */
import { openSearchCommand, printJson } from '../../runs/cli-context.js';
import { formatRunLine } from '../../runs/format-summary.js';
import { listRuns } from '../../runs/run-history.js';
import { EXIT } from '../exit-codes.js';

const USAGE = 'usage: prospect-sync runs <search> [--limit <n>] [--json] [--config <file>]\n';

export async function runCommand(argv: string[]): Promise<number> {
  const cmd = await openSearchCommand<{ limit?: string }>(argv, { limit: { type: 'string' } }, USAGE);
  if (typeof cmd === 'number') return cmd;
  try {
    const runs = await listRuns(cmd.redis, cmd.search, { prefix: cmd.prefix, limit: Number(cmd.values.limit ?? 20) || 20 });
    if (cmd.values.json) printJson({ search: cmd.search, runs });
    else if (runs.length === 0) process.stdout.write(`no runs of ${cmd.search} recorded yet\n`);
    else process.stdout.write(`${runs.map(formatRunLine).join('\n')}\n`);
    return EXIT.ok;
  } finally {
    cmd.close();
  }
}
