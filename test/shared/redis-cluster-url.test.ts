import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { redisUrlForDisplay } from '../../src/cli/redis-connect.js';
import { createLogger } from '../../src/shared/logger.js';
import { clusterSeeds, createRedis, redisUrlForLogs } from '../../src/shared/redis.js';
import { watchRedis } from '../../src/shared/redis-watch.js';

describe('redis+cluster:// URLs (REDIS_URL for a Redis Cluster)', () => {
  it('lists the seed nodes and the credentials', () => {
    expect(clusterSeeds('redis+cluster://:s3cret@10.0.0.1:7000,10.0.0.2:7001/')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      password: 's3cret',
    });
    expect(clusterSeeds('redis+cluster://app:p%40ss@redis-a')).toEqual({
      nodes: [{ host: 'redis-a', port: 6379 }],
      username: 'app',
      password: 'p@ss',
    });
  });

  it('is null for a single Redis and refuses a seed list without a usable node', () => {
    expect(clusterSeeds('redis://127.0.0.1:6379/8')).toBeNull();
    expect(() => clusterSeeds('redis+cluster://')).toThrow(/host:port/);
    expect(() => clusterSeeds('redis+cluster://h:notaport')).toThrow(/host:port/);
  });

  it('is logged without its password', () => {
    expect(redisUrlForLogs('redis+cluster://:s3cret@10.0.0.1:7000,10.0.0.2:7001')).toBe(
      'redis+cluster://10.0.0.1:7000,10.0.0.2:7001',
    );
    expect(redisUrlForDisplay('redis+cluster://:s3cret@10.0.0.1:7000,10.0.0.2:7001')).toBe(
      'redis+cluster://10.0.0.1:7000,10.0.0.2:7001',
    );
  });

  it('a cluster connection is named by its seed nodes when it goes down (never its password)', () => {
    const redis = createRedis('redis+cluster://:pw-not-logged@127.0.0.1:1,127.0.0.1:2', { lazyConnect: true });
    const chunks: string[] = [];
    const stream = new Writable({
      write: (c: Buffer, _e, cb) => {
        chunks.push(c.toString());
        cb();
      },
    });
    watchRedis(redis, { logger: createLogger({ level: 'info' }, stream) });
    redis.emit('error', new Error('connect ECONNREFUSED 127.0.0.1:1'));
    expect(chunks.join('')).toContain('Redis at redis+cluster://127.0.0.1:1,127.0.0.1:2 is unreachable');
    expect(chunks.join('')).not.toContain('pw-not-logged');
    redis.disconnect();
  });
});
