/**
 * A Salesforce login that fails on the network is an outage, not bad credentials (issue 25 item 3): the queued run
 * fails retryable (crm_unavailable), is retried with backoff, and completes once Salesforce answers.
 */
import { describe, expect, it } from 'vitest';
import { createSyncProcessor } from '../../jobs/sync-search.js';
import { startSalesforceEmulator } from '../../src/emulators/salesforce/index.js';
import { enqueueRun, openQueues, startSyncWorker } from '../../src/queue/index.js';
import { listRuns } from '../../src/runs/run-history.js';
import { freePort } from '../../src/shared/free-port.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createRedis } from '../../src/shared/redis.js';
import { closeAfterEach } from '../helpers/closers.js';
import { salesforceRows } from '../helpers/crm-state.js';
import { salesforceAccountSearch, salesforceConfigHead, startFixture } from '../jobs/sync-fixture.js';
import { waitFor } from './queue-env.js';

const SF = { clientId: 'sf-outage-client', clientSecret: 'sf-outage-secret' };

describe('a Salesforce login against a closed port', () => {
  const closers = closeAfterEach();

  it('fails the queued run retryable (crm_unavailable); the retry completes once Salesforce is up', async () => {
    const fx = await startFixture('sf-outage', { hubspot: false });
    closers.push(() => fx.close());
    const port = await freePort();
    fx.env.SF_LOGIN_URL = `http://127.0.0.1:${port}`;
    fx.env.SF_CLIENT_SECRET = SF.clientSecret;
    const config = fx.config(
      `${salesforceConfigHead(SF.clientId)}searches:\n${salesforceAccountSearch('sf-accounts')}`,
    );
    const connection = createRedis(process.env.REDIS_URL);
    closers.push(async () => connection.disconnect());
    const ctx = { connection, prefix: fx.prefix };
    const queues = openQueues(ctx);
    closers.push(() => queues.close());
    const worker = startSyncWorker({
      ctx,
      logger: silentLogger,
      processor: createSyncProcessor({ config, redis: connection, prefix: fx.prefix, logger: silentLogger }),
    });
    closers.push(() => worker.shutdown(2_000));

    const { jobId } = await enqueueRun(queues.sync, 'sf-accounts', 'manual');
    await waitFor(async () => (await queues.sync.getJob(jobId))?.attemptsMade === 1, 40_000);
    expect(await queues.sync.getJobState(jobId)).not.toBe('failed');
    const [first] = await listRuns(fx.redis, 'sf-accounts', { prefix: fx.prefix });
    expect(first).toMatchObject({ runId: jobId, status: 'failed', error: { code: 'crm_unavailable' } });
    expect(first?.error?.message).not.toMatch(/authentication|credential/i);

    const sf = await startSalesforceEmulator({ port, clients: [SF] });
    closers.push(() => sf.close());
    await waitFor(async () => (await queues.sync.getJobState(jobId)) === 'completed', 40_000);
    const total = (await fx.oracleIds('companies', { company: { headcount: { gte: 1 } } })).length;
    expect(salesforceRows(sf, 'Account', 'Prospect_Sync_Id__c', [])).toHaveLength(total);
  }, 90_000);
});
