/**
 * `leavers <search> [--apply] [--json]`: the search's confirmed leavers not acted on yet (the leave guard held them
 * back, or the CRM refused their fields; docs/runs.md, Mirror), by match key. `--apply` acts on them now as the
 * search's `onLeave` says and accepts the drop (the last complete run's matches become the guard's baseline).
 * Exit 0; 2 for an unknown search or a config error; 4 without Redis.
 */
import { reviewLeavers, type LeaversReport } from '../../../jobs/sync-search/index.js';
import { createLogger } from '../../shared/logger.js';
import { openSearchCommand, printJson, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';

export interface LeaversOptions extends ConfigOption, JsonOption {
  apply?: boolean;
}

export async function runCommand(name: string, opts: LeaversOptions): Promise<number> {
  const cmd = await openSearchCommand(name, opts.config);
  try {
    const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' }).child({ cmd: 'leavers' });
    const report = await reviewLeavers(
      { config: cmd.config, redis: cmd.redis, prefix: cmd.prefix, logger },
      name,
      opts.apply === true,
    );
    if (opts.json) printJson(report);
    else process.stdout.write(`${lines(report).join('\n')}\n`);
    return EXIT.ok;
  } finally {
    cmd.close();
  }
}

function lines(r: LeaversReport): string[] {
  const onLeave =
    typeof r.onLeave === 'string' ? r.onLeave : `setFields ${Object.keys(r.onLeave.setFields).join(', ')}`;
  const out = [
    `${r.search}: ${r.pending.length} leaver(s) pending (onLeave: ${onLeave})`,
    ...r.pending.map((key) => `  ${key}`),
  ];
  if (r.applied)
    out.push(
      `applied: ${r.applied.acted} acted on, ${r.applied.pending} still pending (refused by the ` +
        `CRM${r.applied.reason ? `: ${r.applied.reason}` : ''}); the guard's baseline is now the last run's ` +
        `matches`,
    );
  else if (r.pending.length > 0) out.push(`--apply acts on them now.`);
  return out;
}
