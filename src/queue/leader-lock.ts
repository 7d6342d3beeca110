import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import { RELEASE_IF_OWNER, RENEW_IF_OWNER } from '../shared/redis.js';

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

  async start(): Promise<void> {
    await this.tick();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), Math.max(50, Math.floor(this.ttlMs / 3)));
  }

  private async tick(): Promise<void> {
    try {
      if (this.leader) {
        const renewed = await this.opts.redis.eval(RENEW_IF_OWNER, 1, this.opts.key, this.token, String(this.ttlMs));
        if (renewed !== 1) {
          this.leader = false;
          this.opts.logger.warn({ key: this.opts.key }, 'scheduler leadership lost');
          this.opts.onLost?.();
        }
      } else {
        const ok = await this.opts.redis.set(this.opts.key, this.token, 'PX', this.ttlMs, 'NX');
        if (ok === 'OK' && this.stopped) {
          await this.opts.redis.eval(RELEASE_IF_OWNER, 1, this.opts.key, this.token);
        } else if (ok === 'OK') {
          this.leader = true;
          this.opts.logger.info({ key: this.opts.key }, 'scheduler leadership acquired');
          await this.opts.onAcquired();
        }
      }
    } catch (err) {
      this.opts.logger.error({ err }, 'scheduler leader lock check failed');
    } finally {
      this.schedule();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.leader) {
      this.leader = false;
      await this.opts.redis.eval(RELEASE_IF_OWNER, 1, this.opts.key, this.token).catch(() => undefined);
    }
  }
}
