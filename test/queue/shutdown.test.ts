import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { enqueueRun, openQueues, startSyncWorker, type AppQueues } from '../../src/queue/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { queueEnv, waitFor } from './queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';
import { nodeEntry } from '../helpers/node-entry.js';
import type { SyncJobData } from '../../src/queue/index.js';

/** This test's processor keeps its own progress in the job data (the real one uses the checkpoint store). */
type ScratchData = SyncJobData & { checkpoint?: unknown };

const CHILD = fileURLToPath(new URL('./fixtures/worker-child.ts', import.meta.url));

describe('graceful shutdown', () => {
  const closers = closeAfterEach();

  it(
    'SIGTERM mid-run: the processor is aborted, checkpoints, the run goes back to wait unburnt, exit 0 well ' +
      'within 30 s',
    async () => {
      const env = await queueEnv('shutdown');
      const queues: AppQueues = openQueues(env.ctx);
      closers.push(env.cleanup, queues.close);
      const run = await enqueueRun(queues.sync, 'dach', 'manual');

      const child = spawn(process.execPath, nodeEntry(CHILD), {
        env: { ...process.env, QUEUE_PREFIX: env.ctx.prefix },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      closers.push(async () => {
        if (child.exitCode === null) child.kill('SIGKILL');
      });

      await waitFor(() => out.includes(`started ${run.jobId}`) || undefined, 20_000);
      await waitFor(
        async () =>
          ((
            ((await queues.sync.getJob(run.jobId))?.data as ScratchData | undefined)?.checkpoint as
              { step?: number } | undefined
          )?.step ?? 0) >= 3,
      );
      const sentAt = Date.now();
      child.kill('SIGTERM');
      const code = await exited;
      const tookMs = Date.now() - sentAt;

      expect(code, err).toBe(0);
      expect(tookMs).toBeLessThan(30_000);
      expect(out).toMatch(/checkpointed \d+/);
      const job = await queues.sync.getJob(run.jobId);
      expect(await job?.getState()).toBe('waiting');
      expect(job?.attemptsMade).toBe(0);
      const checkpoint = (job?.data as ScratchData | undefined)?.checkpoint as { step: number; aborted?: boolean };
      expect(checkpoint.aborted).toBe(true);

      // Another worker resumes the same run from the checkpoint.
      let resumedFrom: unknown;
      const worker = startSyncWorker({
        ctx: env.ctx,
        logger: silentLogger,
        processor: async (j) => {
          resumedFrom = (j.data as ScratchData).checkpoint;
          return { search: j.data.search, status: 'completed' };
        },
      });
      closers.push(() => worker.shutdown(5_000));
      await waitFor(async () => (await queues.sync.getJobState(run.jobId)) === 'completed');
      expect(resumedFrom).toEqual(checkpoint);
    },
  );
});
