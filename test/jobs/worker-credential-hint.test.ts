/**
 * A run the worker started (a queued job, not the CLI) with a refused credential: the stored summary, the job's
 * error and the log name the variable that holds the credential, never its value (issue 31, item 6).
 */
import { UnrecoverableError } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSyncProcessor } from '../../jobs/sync-search.js';
import { parseConfig } from '../../src/config/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { createLogger } from '../../src/shared/logger.js';
import { companySearch, fakeJob, hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

const WRONG = 'hs-wrong-token-4711';
const HINT = 'check HUBSPOT_TOKEN (destinations.crm.accessToken)';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture('worker-credential-hint', { salesIntel: { companies: 200, persons: 10 } });
});
afterAll(() => fx.close());

describe('a worker run with a refused credential', () => {
  it('stores a summary, fails the job and logs an error that name the variable, not its value', async () => {
    const config = parseConfig(hubspotConfig(companySearch('wrong-token')), 'test.yaml', {
      ...fx.env,
      HUBSPOT_TOKEN: WRONG,
    }).config;
    const lines: string[] = [];
    const logger = createLogger({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const processor = createSyncProcessor({ ...fx.deps(config), logger });
    const error = await processor(
      fakeJob('wrong-token', 'wt-1', 'schedule'),
      'token',
      new AbortController().signal,
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnrecoverableError);
    expect((error as Error).message).toContain(HINT);
    const [stored] = await listRuns(fx.redis, 'wrong-token', { prefix: fx.prefix });
    expect(stored).toMatchObject({ status: 'failed', trigger: 'schedule', error: { code: 'crm_auth_failed' } });
    expect(stored!.error!.message).toMatch(/^HubSpot refused the access token \(401\): check HUBSPOT_TOKEN /);
    expect(stored!.error!.message.endsWith(HINT)).toBe(true);
    const failed = lines.map((l) => JSON.parse(l) as { msg: string; err?: { message: string } });
    expect(failed.find((l) => l.msg === 'run failed')?.err?.message).toContain(HINT);
    expect(JSON.stringify(stored)).not.toContain(WRONG);
    expect(lines.join('\n')).not.toContain(WRONG);
  });
});
