/**
 * `reveals [--since <date>] [--search <name>] [--csv] [--json]`: the reveal log (src/source/reveal-log.ts), one line
 * per paid reveal (person id, search, segment, run, time; never a contact value) and one per erasure, oldest first.
 * Exit 0; 2 for a config error or a bad option; 4 without Redis.
 */
import { stringify } from 'csv-stringify/sync';
import type { RevealLogLine } from '../../source/index.js';
import { loadCommandConfig, printJson, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { connectRedis } from '../redis-connect.js';
import { queuePrefix } from '../../queue/queue-prefix.js';
import { revealLogOf } from '../reveal-log-of.js';

export interface RevealsOptions extends ConfigOption, JsonOption {
  since?: number;
  search?: string;
  csv?: boolean;
}

const HEADER = ['time', 'event', 'person_id', 'search', 'segment', 'run_id'];

function row(line: RevealLogLine): string[] {
  return line.event === 'reveal'
    ? [line.at, line.event, line.personId, line.search, line.segment, line.runId]
    : [line.at, line.event, '', '', '', ''];
}

export async function runCommand(opts: RevealsOptions): Promise<number> {
  const { config } = await loadCommandConfig(opts.config);
  const redis = await connectRedis();
  try {
    const log = revealLogOf(config, redis, queuePrefix());
    const lines = log.lines({
      ...(opts.since === undefined ? {} : { sinceMs: opts.since }),
      ...(opts.search === undefined ? {} : { search: opts.search }),
    });
    if (opts.json) {
      const all: RevealLogLine[] = [];
      for await (const line of lines) all.push(line);
      printJson({ logDays: log.logDays, reveals: all.filter((l) => l.event === 'reveal').length, lines: all });
      return EXIT.ok;
    }
    if (opts.csv) {
      process.stdout.write(stringify([HEADER]));
      for await (const line of lines) process.stdout.write(stringify([row(line)]));
      return EXIT.ok;
    }
    let n = 0;
    for await (const line of lines) {
      n += line.event === 'reveal' ? 1 : 0;
      process.stdout.write(
        line.event === 'reveal'
          ? `${line.at}  ${line.personId}  ${line.search} (${line.segment})  run ${line.runId}\n`
          : `${line.at}  erasure (a person's reveals were removed)\n`,
      );
    }
    process.stdout.write(`${n} reveal(s); the log keeps ${log.logDays} days (reveal.logDays)\n`);
    return EXIT.ok;
  } finally {
    redis.disconnect();
  }
}
