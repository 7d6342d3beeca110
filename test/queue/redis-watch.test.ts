/** The Redis watcher's throttle: one line per outage, progress at most every 30 s, one line on recovery. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/shared/logger.js';
import { createRedis, redisRetryDelay, REDIS_RETRY_MAX_MS, redisUrlForLogs } from '../../src/shared/redis.js';
import { watchRedis } from '../../src/shared/redis-watch.js';

function capture(): { lines: () => { level: number; msg: string }[]; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString());
      cb();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { level: number; msg: string }),
  };
}

describe('watchRedis', () => {
  it('reports 100 failed attempts over 100 s as one outage line, 3 progress lines and one recovery line', () => {
    // never connects (lazy): the test drives the connection's events and the clock
    const redis = createRedis('redis://:pw-not-logged@127.0.0.1:1/3', { lazyConnect: true });
    let t = 1_000_000;
    const out = capture();
    watchRedis(redis, { logger: createLogger({ level: 'debug' }, out.stream), now: () => t });
    for (let i = 0; i < 100; i++) {
      redis.emit('error', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
      redis.emit('reconnecting');
      t += 1_000;
    }
    redis.emit('ready');
    const lines = out.lines();
    expect(lines.map((l) => l.level)).toEqual([50, 40, 40, 40, 30]);
    expect(lines[0]?.msg).toContain('Redis at redis://127.0.0.1:1/3 is unreachable');
    expect(lines[4]?.msg).toContain('reachable again');
    expect(JSON.stringify(lines)).not.toContain('pw-not-logged');
    redis.disconnect();
  });

  it('backoff grows and is capped; URLs lose their credentials', () => {
    expect(redisRetryDelay(1)).toBe(200);
    expect(redisRetryDelay(2)).toBe(400);
    expect(redisRetryDelay(1_000)).toBe(REDIS_RETRY_MAX_MS);
    expect(redisUrlForLogs('redis://user:secret@redis.internal:6380/2')).toBe('redis://redis.internal:6380/2');
  });
});
