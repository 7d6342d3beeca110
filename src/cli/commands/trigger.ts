/**
 * `trigger <search> [--full-resync] [--json]`: enqueue a run now. If a run of that search is already queued, active or
 * delayed it is reported instead of doubled (and `--full-resync` does not apply to it); exit 0 either way (contract).
 * Unknown search: exit 2.
 */
import { enqueueRun, openQueues } from '../../queue/index.js';
import { openSearchCommand, printJson, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';

export async function runCommand(
  name: string,
  opts: ConfigOption & JsonOption & { fullResync?: boolean; force?: boolean },
): Promise<number> {
  const cmd = await openSearchCommand(name, opts.config);
  const queues = openQueues({ connection: cmd.redis, prefix: cmd.prefix });
  try {
    const fullResync = opts.fullResync === true;
    const result = await enqueueRun(queues.sync, cmd.search, 'manual', { fullResync, force: opts.force === true });
    if (opts.json) printJson(result);
    else if (result.deduplicated) {
      const note = fullResync ? '; --full-resync does not apply to it: trigger again once it has ended' : '';
      process.stdout.write(`run already in progress: job ${result.jobId} (${result.state})${note}\n`);
    } else process.stdout.write(`queued ${fullResync ? 'full resync' : 'run'} of ${cmd.search}: job ${result.jobId}\n`);
    return EXIT.ok;
  } finally {
    await queues.close();
    cmd.close();
  }
}
