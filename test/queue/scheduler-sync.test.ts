import { afterEach, describe, expect, it } from 'vitest';
import { openQueues, syncJobSchedulers, repeatOptionsFor, type AppQueues } from '../../src/queue/index.js';
import { queueEnv } from './queue-env.js';

describe('job schedulers from the config', () => {
  let env: Awaited<ReturnType<typeof queueEnv>> | undefined;
  let queues: AppQueues | undefined;
  afterEach(async () => {
    await queues?.close();
    await env?.cleanup();
    queues = undefined;
    env = undefined;
  });

  it('creates, keeps, updates and removes schedulers as the config changes', async () => {
    env = await queueEnv('sched-sync');
    queues = openQueues(env.ctx);

    const first = await syncJobSchedulers(queues.tick, [
      { name: 'dach', schedule: { cron: '0 6 * * *', timezone: 'Europe/Berlin' } },
      { name: 'hourly', schedule: { every: '1h' } },
      { name: 'manual-only' },
    ]);
    expect(first.upserted.sort()).toEqual(['dach', 'hourly']);
    let list = await queues.tick.getJobSchedulers(0, -1);
    const byId = new Map(list.map((s) => [s.key, s]));
    expect(byId.get('dach')).toMatchObject({ pattern: '0 6 * * *', tz: 'Europe/Berlin' });
    expect(byId.get('hourly')).toMatchObject({ every: 3_600_000 });
    expect(byId.get('dach')?.template?.data).toEqual({ search: 'dach' });
    expect(byId.has('manual-only')).toBe(false);

    // Same config again: nothing rewritten.
    const again = await syncJobSchedulers(queues.tick, [
      { name: 'dach', schedule: { cron: '0 6 * * *', timezone: 'Europe/Berlin' } },
      { name: 'hourly', schedule: { every: 3_600_000 } },
    ]);
    expect(again).toEqual({ upserted: [], unchanged: expect.arrayContaining(['dach', 'hourly']), removed: [] });

    // dach changes time, hourly leaves the config.
    const changed = await syncJobSchedulers(queues.tick, [
      { name: 'dach', schedule: { cron: '30 7 * * 1-5', timezone: 'UTC' } },
    ]);
    expect(changed).toEqual({ upserted: ['dach'], unchanged: [], removed: ['hourly'] });
    list = await queues.tick.getJobSchedulers(0, -1);
    expect(list.map((s) => [s.key, s.pattern, s.tz])).toEqual([['dach', '30 7 * * 1-5', 'UTC']]);
  });

  it('maps schedules to repeat options and rejects a bad every', () => {
    expect(repeatOptionsFor({ name: 'x', schedule: { every: '30m' } })).toEqual({ every: 1_800_000 });
    expect(repeatOptionsFor({ name: 'x', schedule: { cron: '0 6 * * *' } })).toEqual({ pattern: '0 6 * * *' });
    expect(repeatOptionsFor({ name: 'x' })).toBeUndefined();
    expect(() => repeatOptionsFor({ name: 'x', schedule: { every: 'soon' } })).toThrow(/search 'x': invalid every/);
  });
});
