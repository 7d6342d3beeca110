/**
 * `runs [search] [--limit n] [--json]`: the most recent run summaries of a search, newest first; without a search,
 * the last run of every search in the config. Exit 0 (2 config).
 */
import { formatRunLine } from '../../runs/format-summary.js';
import { listRuns } from '../../runs/run-history.js';
import {
  loadCommandConfig,
  openSearchCommand,
  printJson,
  type ConfigOption,
  type JsonOption,
  type LimitOption,
} from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { connectRedis } from '../redis-connect.js';
import { queuePrefix } from '../../queue/queue-prefix.js';

export async function runCommand(
  name: string | undefined,
  opts: ConfigOption & JsonOption & LimitOption,
): Promise<number> {
  if (name === undefined) return lastRunOfEach(opts);
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

async function lastRunOfEach(opts: ConfigOption & JsonOption): Promise<number> {
  const { config } = await loadCommandConfig(opts.config);
  const redis = await connectRedis();
  try {
    const prefix = queuePrefix();
    const rows = await Promise.all(
      config.searches.map(async ({ name }) => ({
        search: name,
        last: (await listRuns(redis, name, { prefix, limit: 1 }))[0] ?? null,
      })),
    );
    if (opts.json) printJson({ searches: rows });
    else {
      const width = Math.max(...rows.map((r) => r.search.length));
      process.stdout.write(
        `${rows.map((r) => `${r.search.padEnd(width)}  ${r.last ? formatRunLine(r.last) : 'never run'}`).join('\n')}\n`,
      );
    }
    return EXIT.ok;
  } finally {
    redis.disconnect();
  }
}
