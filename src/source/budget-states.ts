/**
 * What /metrics, the dashboard and the alerts read of every account's budget: found through the index of accounts
 * the ledgers keep (budgetIndexKey), never a SCAN of the keyspace.
 */
import type { Redis } from 'ioredis';
import { pruneKeyIndex, readKeyIndex } from '../shared/key-index.js';
import { scanKeys } from '../shared/redis.js';
import { budgetIndexKey, RedisBudgetLedger } from './budget-ledger.js';
import type { TokenBalance } from './budget-ledger.js';

/** What /metrics and the dashboard show of one account's budget: read only, never reserves anything. */
export interface BudgetState {
  /** The account's key (a hash of base URL and client id, never the secret). */
  account: string;
  tokens: TokenBalance | null;
  creditsToday: number;
  creditsTotal: number;
}

/** Budget state of every account with state under `keyPrefix` (the `keyPrefix` of createSourceClient). */
export async function readBudgetStates(redis: Redis, keyPrefix: string): Promise<BudgetState[]> {
  const base = `${keyPrefix}:source:`;
  const index = budgetIndexKey(keyPrefix);
  const accounts = await readKeyIndex(redis, index, async () => {
    const found = new Set<string>();
    for (const pattern of [`${base}*:tokens`, `${base}*:credits:total`]) {
      for (const key of await scanKeys(redis, pattern)) {
        const account = key.slice(base.length).split(':')[0];
        if (account) found.add(account);
      }
    }
    return [...found];
  });
  const states = await Promise.all(
    accounts.map(async (account): Promise<BudgetState | undefined> => {
      const ledger = new RedisBudgetLedger(redis, `${base}${account}`, 0, {});
      const [tokens, usage] = await Promise.all([ledger.tokenBalance(), ledger.creditUsage('')]);
      const gone =
        tokens === null &&
        usage.account === 0 &&
        (await pruneKeyIndex(redis, index, account, [`${base}${account}:tokens`, `${base}${account}:credits:total`]));
      if (gone) return undefined;
      return { account, tokens, creditsToday: usage.day, creditsTotal: usage.account };
    }),
  );
  return states.filter((s): s is BudgetState => s !== undefined);
}
