/**
 * Pacing through the real queue (`source.tokens.pace: true`): the run of a low-priority search that would leave less
 * than the high-priority one needs until the reset waits (delayed, `stopReason: paced`, nothing fetched); the high
 * one runs; `trigger --force` (enqueueRun force) starts the waiting run at once, unpaced.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startRoles, type RunningRoles } from '../../src/cli/commands/start.js';
import { enqueueRun } from '../../src/queue/index.js';
import { listRuns, recordRun } from '../../src/runs/run-history.js';
import { defaultAccountKey } from '../../src/source/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import {
  COMPANY_SEARCH,
  companySearch,
  completedRun,
  hubspotConfig,
  startFixture,
  type Fixture,
} from '../jobs/sync-fixture.js';

let fx: Fixture | undefined;
let roles: RunningRoles | undefined;
afterEach(async () => {
  await roles?.close(2_000);
  await fx?.close();
  fx = roles = undefined;
});

const H = 3_600_000;
const HIGH = COMPANY_SEARCH.replace(
  '    destination: crm',
  '    schedule: {every: 1h}\n    priority: 10\n    destination: crm',
);
const SEARCHES = `${HIGH}${companySearch(
  'low',
  `    maxRecords: 30
    schedule: {every: 1h}
`,
)}`;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + 30_000;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('token pacing through the queue', () => {
  it('delays the low-priority run, runs the high one, and --force runs the waiting one', async () => {
    fx = await startFixture('token-pacing');
    const f = fx;
    const config = f.config(hubspotConfig(SEARCHES, '  tokens: {pace: true}'));
    // Paces: all-companies 1,000 a run, low 30. A balance 1 token short of letting low run: all-companies' runs
    // until the reset (3.5 h away) need runs x 1,000, and low would leave runs x 1,000 - 1.
    for (const id of ['a1', 'a2', 'a3'])
      await recordRun(f.redis, completedRun('all-companies', id, 1000), { prefix: f.prefix });
    await recordRun(f.redis, completedRun('low', 'l1', 30), { prefix: f.prefix });
    const now = Date.now();
    const resetAt = now + 3.5 * H;
    const runs = Math.floor((resetAt - 1) / H) - Math.floor(now / H);
    const account = defaultAccountKey(config.source.baseUrl, config.source.auth.clientId);
    await f.redis.hset(`${f.prefix}:source:${account}:tokens`, {
      limit: 100_000,
      remaining: runs * 1000 + 29,
      resetAt,
      observedAt: now,
    });

    roles = await startRoles({
      roles: { scheduler: false, worker: true, dashboard: false },
      config,
      configPath: 'unused.yaml',
      logger: silentLogger,
      prefix: f.prefix,
      concurrency: 2,
    });
    const queue = roles.queues.sync;
    const low = await enqueueRun(queue, 'low', 'manual');
    const paced = await until('the paced run', async () =>
      (await listRuns(f.redis, 'low', { prefix: f.prefix })).find((r) => r.runId === low.jobId),
    );
    expect(paced).toMatchObject({
      status: 'delayed',
      stopReason: 'paced',
      resumeAt: new Date(Math.floor(now / H) * H + H).toISOString(),
      fetched: 0,
      tokensSpent: 0,
    });
    // The summary is stored before BullMQ moves the job from active to delayed: wait for the move.
    const state = await until('the delayed job', async () => {
      const now = await queue.getJobState(low.jobId);
      return now === 'active' ? undefined : now;
    });
    expect(state).toBe('delayed');
    expect(f.si.stats('worker').tokensCharged).toBe(0);

    const high = await enqueueRun(queue, 'all-companies', 'manual');
    const highRun = await until('the high-priority run', async () =>
      (await listRuns(f.redis, 'all-companies', { prefix: f.prefix })).find((r) => r.runId === high.jobId),
    );
    expect(highRun).toMatchObject({ status: 'completed' });
    expect(highRun.tokensSpent).toBeGreaterThan(0);

    const forced = await enqueueRun(queue, 'low', 'manual', { force: true });
    expect(forced).toMatchObject({ jobId: low.jobId, deduplicated: true });
    const lowRun = await until('the forced run', async () =>
      (await listRuns(f.redis, 'low', { prefix: f.prefix })).find(
        (r) => r.runId === low.jobId && r.status !== 'delayed',
      ),
    );
    expect(lowRun).toMatchObject({ status: 'completed', limitedBy: 'max_records', unique: 30 });
  });
});
