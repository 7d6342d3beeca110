import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import { runLua } from '../shared/lua-script.js';
import { RELEASE_IF_OWNER, RENEW_IF_OWNER } from '../shared/owner-lease.js';
import { isRedisConnectionError } from '../shared/redis-connection-error.js';

export interface LeaderLockOptions {
  redis: Redis;
  key: string;
  /** Lease length; a dead leader is replaced within about this long. */
  ttlMs?: number;
  logger: Logger;
  onAcquired: () => Promise<void> | void;
  onLost?: () => void;
}

/**
 * One leader across processes: SET NX PX with a random token, renewed every ttl/3; other processes retry at the
 * same pace and take over when the lease lapses.
 */
export class LeaderLock {
  readonly token = randomUUID();
  private timer: NodeJS.Timeout | undefined;
  private leader = false;
  private stopped = false;
  private readonly ttlMs: number;

  constructor(private readonly opts: LeaderLockOptions) {
    this.ttlMs = opts.ttlMs ?? 15_000;
  }

  get isLeader(): boolean {
    return this.leader;
  }

  /**
   * Tries to lead at once when Redis is ready (so a lone process is leader when this resolves); while Redis is
   * unreachable it returns at once and keeps trying in the background, so the process' other roles start.
   */
  async start(): Promise<void> {
    if (await this.reachable()) await this.tick();
    else void this.tick();
  }

  /** Ready, or the connection attempt under way succeeds; false as soon as one fails. */
  private reachable(): Promise<boolean> {
    const redis = this.opts.redis;
    if (redis.status === 'ready' || redis.status === 'wait') return Promise.resolve(true);
    if (redis.status !== 'connecting' && redis.status !== 'connect') return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (ok: boolean) => () => {
        redis.off('ready', onReady);
        redis.off('error', onError);
        resolve(ok);
      };
      const onReady = done(true);
      const onError = done(false);
      redis.once('ready', onReady);
      redis.once('error', onError);
    });
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), Math.max(50, Math.floor(this.ttlMs / 3)));
  }

  private async tick(): Promise<void> {
    try {
      if (this.leader) {
        const renewed = await runLua(
          this.opts.redis,
          RENEW_IF_OWNER,
          [this.opts.key],
          [this.token, String(this.ttlMs)],
        );
        if (renewed !== 1) {
          this.leader = false;
          this.opts.logger.warn({ key: this.opts.key }, 'scheduler leadership lost');
          this.opts.onLost?.();
        }
      } else {
        const ok = await this.opts.redis.set(this.opts.key, this.token, 'PX', this.ttlMs, 'NX');
        if (ok === 'OK' && this.stopped) {
          await runLua(this.opts.redis, RELEASE_IF_OWNER, [this.opts.key], [this.token]);
        } else if (ok === 'OK') {
          this.leader = true;
          this.opts.logger.info({ key: this.opts.key }, 'scheduler leadership acquired');
          await this.opts.onAcquired();
        }
      }
    } catch (err) {
      if (isRedisConnectionError(err))
        this.opts.logger.debug({ err: (err as Error).message }, 'scheduler leader lock: Redis unreachable');
      else this.opts.logger.error({ err }, 'scheduler leader lock check failed');
    } finally {
      this.schedule();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.leader) {
      this.leader = false;
      // With Redis unreachable the command would wait for it: let the lease lapse instead.
      if (this.opts.redis.status === 'ready')
        await runLua(this.opts.redis, RELEASE_IF_OWNER, [this.opts.key], [this.token]).catch(() => undefined);
    }
  }
}
