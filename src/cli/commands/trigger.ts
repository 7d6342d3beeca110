/**
 * `trigger <search> [--full-resync] [--json]`: enqueue a run now. If a run of that search is already queued, active or
 * delayed it is reported instead of doubled (and `--full-resync` does not apply to it); exit 0 either way (contract).
 * Unknown search: exit 2.
 */
import { enqueueRun, openQueues } from '../../queue/index.js';
import { openSearchCommand, printJson } from '../../runs/cli-context.js';
import { EXIT } from '../exit-codes.js';

const USAGE =
  'usage: prospect-sync trigger <search> [--full-resync] [--json] [--config <file>]\n' +
  '  --full-resync  the run sends every record, also those unchanged since the last run\n';

export async function runCommand(argv: string[]): Promise<number> {
  const cmd = await openSearchCommand<{ 'full-resync'?: boolean }>(argv, { 'full-resync': { type: 'boolean' } }, USAGE);
  if (typeof cmd === 'number') return cmd;
  const queues = openQueues({ connection: cmd.redis, prefix: cmd.prefix });
  try {
    const fullResync = cmd.values['full-resync'] === true;
    const result = await enqueueRun(queues.sync, cmd.search, 'manual', { fullResync });
    if (cmd.values.json) printJson(result);
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
