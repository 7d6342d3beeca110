/**
 * Vitest global setup: the Redis the whole suite uses, found before any test file starts, so that a missing Redis
 * fails the run at once with what to do instead of every test waiting on reconnects.
 *
 * $REDIS_URL when set (it must answer: a run aimed at one Redis never quietly uses another); else 127.0.0.1:6379
 * when it answers; else a private redis-server on a free port, stopped after the run; else an error saying what to
 * install. The URL reaches the test files (and the processes they start) as $REDIS_URL.
 */
import { AppError } from '../src/shared/app-error.js';
import { INSTALL_REDIS_HINT, startPrivateRedis } from '../src/shared/private-redis-server.js';
import { DEFAULT_REDIS_URL, redisAnswers, redisUrlForLogs } from '../src/shared/redis.js';

export interface SuiteRedis {
  url: string;
  /** How it was found, for the one line the run prints. */
  origin: 'REDIS_URL' | 'default' | 'private';
  stop(): Promise<void>;
}

export class NoRedisForTestsError extends AppError {
  constructor(message: string) {
    super('no_redis_for_tests', message);
  }
}

const PROBE_MS = 2_000;

export async function findSuiteRedis(
  env: NodeJS.ProcessEnv = process.env,
  defaultUrl: string = DEFAULT_REDIS_URL,
): Promise<SuiteRedis> {
  const none = async (): Promise<void> => undefined;
  if (env.REDIS_URL) {
    if (await redisAnswers(env.REDIS_URL, PROBE_MS)) return { url: env.REDIS_URL, origin: 'REDIS_URL', stop: none };
    throw new NoRedisForTestsError(
      `The tests need Redis: none answers at REDIS_URL=${redisUrlForLogs(env.REDIS_URL)}.\n` +
        'Start that Redis, or unset REDIS_URL to use 127.0.0.1:6379 or a private redis-server.',
    );
  }
  if (await redisAnswers(defaultUrl, PROBE_MS)) return { url: defaultUrl, origin: 'default', stop: none };
  const server = await startPrivateRedis({ env });
  if (!server) {
    throw new NoRedisForTestsError(
      `The tests need Redis: none answers at ${defaultUrl} (set REDIS_URL for another) and redis-server is not ` +
        'installed (not on PATH), so no private one can be started. Install it, then run the tests again:\n' +
        INSTALL_REDIS_HINT,
    );
  }
  return { url: server.url, origin: 'private', stop: server.stop };
}

export default async function setup(): Promise<() => Promise<void>> {
  const redis = await findSuiteRedis().catch((error: unknown) => {
    if (!(error instanceof NoRedisForTestsError)) throw error;
    // the message alone: vitest would wrap it in a stack trace and a misleading "No test files found"
    process.stderr.write(`\n${error.message}\n`);
    process.exit(1);
  });
  if (redis.origin === 'private') {
    process.stdout.write(`no Redis at ${DEFAULT_REDIS_URL}: the tests use a private redis-server at ${redis.url}\n`);
  }
  process.env.REDIS_URL = redis.url;
  return redis.stop;
}
