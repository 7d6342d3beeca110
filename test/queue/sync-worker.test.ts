import { DelayedError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues, startSyncWorker, syncBackoff } from '../../src/queue/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { queueEnv, waitFor } from './queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';
import type { SyncJobData } from '../../src/queue/index.js';

/** This test's processor keeps its own progress in the job data (the real one uses the checkpoint store). */
type ScratchData = SyncJobData & { checkpoint?: unknown };

describe('sync worker bootstrap', () => {
  const closers = closeAfterEach();

  it(
    'a run that delays itself (402 exhausted path) gets the lock token, is not failed, keeps its dedup, and ' +
      'resumes',
    async () => {
      const env = await queueEnv('worker-delay');
      const queues = openQueues(env.ctx);
      closers.push(env.cleanup, queues.close);
      const calls: unknown[] = [];
      let failures = 0;
      const worker = startSyncWorker({
        ctx: env.ctx,
        logger: silentLogger,
        processor: async (job, token) => {
          calls.push((job.data as ScratchData).checkpoint);
          if (calls.length === 1) {
            await job.updateData({ ...job.data, checkpoint: { page: 7 } } as ScratchData);
            await job.moveToDelayed(Date.now() + 400, token);
            throw new DelayedError();
          }
          return { search: job.data.search, status: 'completed' };
        },
      });
      worker.worker.on('failed', () => (failures += 1));
      closers.push(() => worker.shutdown(5_000));

      const run = await enqueueRun(queues.sync, 'budget', 'manual');
      await waitFor(async () => (await queues.sync.getJobState(run.jobId)) === 'delayed');
      expect(await enqueueRun(queues.sync, 'budget', 'manual')).toMatchObject({
        deduplicated: true,
        jobId: run.jobId,
        state: 'delayed',
      });

      await waitFor(async () => (await queues.sync.getJobState(run.jobId)) === 'completed', 10_000);
      expect(calls).toEqual([undefined, { page: 7 }]);
      expect(failures).toBe(0);
      const job = await queues.sync.getJob(run.jobId);
      expect(job?.attemptsStarted).toBe(2);
    },
  );

  it('a failing run retries with the central backoff, honouring a retryAfterMs hint', async () => {
    const env = await queueEnv('worker-retry');
    const queues = openQueues(env.ctx);
    closers.push(env.cleanup, queues.close);
    const startedAt: number[] = [];
    const worker = startSyncWorker({
      ctx: env.ctx,
      logger: silentLogger,
      processor: async (job) => {
        startedAt.push(Date.now());
        if (startedAt.length === 1) throw Object.assign(new Error('upstream 503'), { retryAfterMs: 300 });
        return { search: job.data.search, status: 'completed' };
      },
    });
    closers.push(() => worker.shutdown(5_000));
    const run = await enqueueRun(queues.sync, 'flaky', 'manual');
    await waitFor(async () => (await queues.sync.getJobState(run.jobId)) === 'completed', 10_000);
    const [first, second] = startedAt as [number, number];
    expect(second - first).toBeGreaterThanOrEqual(280);
    expect((await queues.sync.getJob(run.jobId))?.opts.attempts).toBe(5);
  });

  it('backoff grows exponentially with jitter and is capped', () => {
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const ceiling = Math.min(300_000, 5_000 * 2 ** (attempt - 1));
      const value = syncBackoff(attempt, 'sync', new Error('x')) as number;
      expect(value).toBeGreaterThanOrEqual(ceiling / 2);
      expect(value).toBeLessThanOrEqual(ceiling);
    }
  });
});
