/** What every process's governors learned and counted, for /metrics and the dashboard: read only. */
import type { Redis } from 'ioredis';
import { pruneKeyIndex, readKeyIndex } from './key-index.js';
import { governorIndexKey, governorKeys, type OutcomeClass } from './rate-governor.js';
import { scanKeys } from './redis.js';

const OUTCOMES: readonly OutcomeClass[] = ['2xx', '4xx', '5xx', '429', 'network'];

export interface GovernorSnapshot {
  remote: string;
  account: string;
  operation: string;
  limit: number | null;
  windowMs: number | null;
  mode: 'headers' | 'fallback' | null;
  /** When (epoch ms, Redis clock) an answer last taught the limit, and when it last changed; null: never. */
  learnedAt?: number | null;
  changedAt?: number | null;
  /** The daily allowance the remote last reported, and when; null: none reported. */
  daily?: { limit: number; remaining: number; at: number | null } | null;
  requests: Record<'2xx' | '4xx' | '5xx' | '429' | 'network', number>;
  waitedSeconds: number;
}

const numberOrNull = (v: string | null | undefined): number | null => (v ? Number(v) : null);

/** Every governed (remote, account, operation) under `prefix`, with what it learned and its request counts. */
export async function listGovernorSnapshots(redis: Redis, prefix: string): Promise<GovernorSnapshot[]> {
  const base = `${prefix}:gov:`;
  const index = governorIndexKey(prefix);
  // A database written before the index existed is indexed once, by one SCAN.
  const members = await readKeyIndex(redis, index, async () => {
    const found = new Set<string>();
    for (const key of await scanKeys(redis, `${base.replace(/[*?[\]\\]/g, '\\$&')}*`)) {
      const m = /^([^:]+):([^:]+):([^:]+):(?:state|stats)$/.exec(key.slice(base.length));
      if (m) found.add(`${m[1]}:${m[2]}:${m[3]}`);
    }
    return [...found];
  });
  const snapshots: GovernorSnapshot[] = [];
  for (const id of members.filter((m) => /^[^:]+:[^:]+:[^:]+$/.test(m))) {
    const [remote = '', account = '', operation = ''] = id.split(':');
    const k = governorKeys(prefix, remote, account, operation);
    const [st, stats] = await Promise.all([
      redis.hmget(
        k.state,
        'limit',
        'windowMs',
        'mode',
        'learnedAt',
        'changedAt',
        'dailyLimit',
        'dailyRemaining',
        'dailyAt',
      ),
      redis.hgetall(k.stats),
    ]);
    const empty = st.every((v) => v === null) && Object.keys(stats).length === 0;
    if (empty && (await pruneKeyIndex(redis, index, id, [k.state, k.stats]))) continue;
    const requests = Object.fromEntries(
      OUTCOMES.map((o) => [o, Number(stats[o] ?? 0)]),
    ) as GovernorSnapshot['requests'];
    snapshots.push({
      remote,
      account,
      operation,
      limit: numberOrNull(st[0]),
      windowMs: numberOrNull(st[1]),
      mode: st[2] === 'headers' || st[2] === 'fallback' ? st[2] : null,
      learnedAt: numberOrNull(st[3]),
      changedAt: numberOrNull(st[4]),
      daily: st[5] && st[6] ? { limit: Number(st[5]), remaining: Number(st[6]), at: numberOrNull(st[7]) } : null,
      requests,
      waitedSeconds: Number(stats.waitedMs ?? 0) / 1000,
    });
  }
  return snapshots;
}
