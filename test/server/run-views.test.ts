/**
 * What /runs says a search does now: a paced (delayed) run with its due time, a waiting one, kept apart from the last
 * result.
 */
import { describe, expect, it } from 'vitest';
import type { SavedSearch } from '../../src/config/index.js';
import { openQueues } from '../../src/queue/index.js';
import { SYNC_JOB } from '../../src/queue/job-data.js';
import { recordRun } from '../../src/runs/run-history.js';
import { emptyCounts } from '../../src/runs/run-summary.js';
import { searchRows } from '../../src/server/run-views.js';
import { runsIndexPage } from '../../src/server/runs-pages.js';
import { closeAfterEach } from '../helpers/closers.js';
import { queueEnv } from '../queue/queue-env.js';

const search = (name: string): SavedSearch => ({ name, destination: 'crm' }) as SavedSearch;

describe('run views', () => {
  const closers = closeAfterEach();

  it(
    'a delayed run is paced until its due time; a run waiting for others says for whom; the last result stays ' +
      'apart',
    async () => {
      const env = await queueEnv('run-views');
      const queues = openQueues(env.ctx);
      closers.push(env.cleanup, queues.close);
      const at = new Date().toISOString();
      await recordRun(
        env.ctx.connection,
        {
          search: 'paced',
          status: 'failed',
          ...emptyCounts(),
          durationMs: 1_000,
          runId: 'r0',
          startedAt: at,
          finishedAt: at,
          dryRun: false,
          partitions: 1,
        },
        { prefix: env.ctx.prefix },
      );
      const due = Date.now() + 2 * 3_600_000;
      await queues.sync.add(
        SYNC_JOB,
        { search: 'paced', runId: 'r1', trigger: 'schedule', requestedAt: at },
        { jobId: 'r1', delay: due - Date.now() },
      );
      const waiting = await queues.sync.add(
        SYNC_JOB,
        { search: 'people', runId: 'r2', trigger: 'schedule', requestedAt: at },
        { jobId: 'r2', delay: 60_000 },
      );
      await waiting.updateProgress({ waitingFor: ['companies'], since: Date.now() });

      const rows = await searchRows({
        redis: env.ctx.connection,
        prefix: env.ctx.prefix,
        queues: [queues.sync, queues.tick],
        searches: () => [search('paced'), search('people')],
      });
      const paced = rows.find((r) => r.search.name === 'paced');
      expect(paced?.live?.delayedUntil).toBeGreaterThanOrEqual(due - 1_000);
      expect(paced?.live?.delayedUntil).toBeLessThanOrEqual(due + 1_000);
      expect(paced?.last?.status).toBe('failed');
      expect(rows.find((r) => r.search.name === 'people')?.live).toMatchObject({ waitingFor: ['companies'] });
      expect(rows.find((r) => r.search.name === 'people')?.live?.delayedUntil).toBeUndefined();

      const html = await runsIndexPage(rows);
      const pacedRow = /<tr><td data-label="Search"><a href="\/runs\/paced">[\s\S]*?<\/tr>/.exec(html)?.[0] ?? '';
      expect(pacedRow).toMatch(
        new RegExp(
          String.raw`<td class="cell-wide" data-label="Now"><span class="warn">delayed \(paced\): resumes in (1 ` +
            String.raw`h 59 min|2 h 0 min)`,
        ),
      );
      expect(pacedRow).toMatch(/data-label="Last result"><span class="failed">failed<\/span>/);
      expect(html).toContain('waiting for companies (runs after them)');
    },
  );
});
