/**
 * `trigger <search> [--json]`: enqueue a run now. If a run of that search is already queued, active or delayed it is
 * reported instead of doubled; exit 0 either way (contract). Unknown search: exit 2.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, resolveConfigPath, type AppConfig } from '../../config/index.js';
import { enqueueRun, openQueues, queuePrefix } from '../../queue/index.js';
import { createRedis } from '../../shared/redis.js';
import { EXIT } from '../exit-codes.js';

const USAGE = 'usage: prospect-sync trigger <search> [--json] [--config <file>]\n';

export async function runCommand(argv: string[]): Promise<number> {
  let parsed: { values: { config?: string; json?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: { config: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    return EXIT.usage;
  }
  const [search, ...extra] = parsed.positionals;
  if (!search || extra.length > 0) {
    process.stderr.write(USAGE);
    return EXIT.usage;
  }
  let config: AppConfig;
  try {
    config = await loadConfig({ path: resolveConfigPath(parsed.values.config) });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return EXIT.config;
    }
    throw err;
  }
  if (!config.searches.some((s) => s.name === search)) {
    process.stderr.write(`unknown search '${search}' (known: ${config.searches.map((s) => s.name).join(', ')})\n`);
    return EXIT.config;
  }

  // Fail fast when Redis is down instead of queueing commands forever.
  const connection = createRedis(undefined, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  const queues = openQueues({ connection, prefix: queuePrefix() });
  try {
    const result = await enqueueRun(queues.sync, search, 'manual');
    if (parsed.values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else if (result.deduplicated) process.stdout.write(`run already in progress: job ${result.jobId} (${result.state})\n`);
    else process.stdout.write(`queued run of ${search}: job ${result.jobId}\n`);
    return EXIT.ok;
  } finally {
    await queues.close();
    connection.disconnect();
  }
}
