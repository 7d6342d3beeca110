import { describe, expect, it } from 'vitest';
import { createRedis } from '../src/shared/redis.js';

describe('runtime', () => {
  it('runs on the pinned Node >= 22, not the machine Node 20', () => {
    const major = Number(process.version.slice(1).split('.')[0]);
    console.log(`tests run on node ${process.version}`);
    expect(major).toBeGreaterThanOrEqual(22);
  });

  it('reaches a real Redis', async () => {
    const redis = createRedis(undefined, { maxRetriesPerRequest: 1 });
    try {
      expect(await redis.ping()).toBe('PONG');
    } finally {
      redis.disconnect();
    }
  });
});
