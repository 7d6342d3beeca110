/** `after:` per CRM instance: which complete runs of a followed search count for the follower's instance. */
import { afterEach, describe, expect, it } from 'vitest';
import { followedRuns, followerInstance } from '../../jobs/sync-search/run-order.js';
import type { DestinationConfig } from '../../src/config/index.js';
import { rememberInstance } from '../../src/crm/crm-instance-store.js';
import { recordRun } from '../../src/runs/run-history.js';
import { testRedis } from '../helpers/redis.js';
import { completedRun } from './sync-fixture.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const portal = (baseUrl: string): DestinationConfig =>
  ({ type: 'hubspot', accessToken: 'token', baseUrl }) as unknown as DestinationConfig;

describe('followedRuns per CRM instance', () => {
  it('counts a complete run only for the instance the follower writes to; older runs for any', async () => {
    const t = await testRedis('run-order');
    cleanup = t.cleanup;
    const { redis, prefix } = t;
    const a = portal('http://a.example');
    const b = portal('http://b.example');
    await rememberInstance(redis, prefix, a, 'hubspot:1');
    await recordRun(redis, { ...completedRun('companies', 'r1', 1), crmInstance: 'hubspot:1' }, { prefix });
    const last = async (destination: DestinationConfig, since: number): Promise<string | null> => {
      const follower = await followerInstance(redis, prefix, destination, since);
      return (await followedRuns(redis, prefix, ['companies'], follower))[0]!.lastComplete?.runId ?? null;
    };
    expect(await last(a, Date.now())).toBe('r1');
    // Settings no run opened yet: only runs since the follower was queued count.
    expect(await last(b, Date.now() + 1_000)).toBeNull();
    expect(await last(b, 0)).toBe('r1');
    // B is known to be another portal: the run for portal 1 does not count, whenever it ended.
    await rememberInstance(redis, prefix, b, 'hubspot:2');
    expect(await last(b, 0)).toBeNull();
    // A run of an earlier version (no crmInstance) counts for any instance.
    await recordRun(redis, completedRun('companies', 'r0', 1), { prefix });
    expect(await last(b, Date.now())).toBe('r0');
  });
});
