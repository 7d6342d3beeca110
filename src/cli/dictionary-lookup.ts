/**
 * Dictionary entries for the commands that read them (`values`, `validate --online`): through the real source client
 * (authenticated and rate-limited like a run), kept in Redis per account for an hour, since dictionaries change
 * rarely and each read counts against the account's dictionary limit.
 */
import type { Redis } from 'ioredis';
import type { DictionaryEntry, SourceClient } from '../source/index.js';
import { withSourceCommand } from './command-context.js';

const CACHE_SECONDS = 3600;

export type EntriesLookup = (name: string) => Promise<DictionaryEntry[]>;

export function withDictionaries<T>(
  configFlag: string | undefined,
  use: (lookup: EntriesLookup) => Promise<T>,
): Promise<T> {
  return withSourceCommand(configFlag, ({ source, redis, prefix }) => use(cachedEntries(source, redis, prefix)));
}

/** Dictionary entries through `client`, kept in Redis under the account's keys for an hour. */
export function cachedEntries(client: SourceClient, redis: Redis, prefix: string): EntriesLookup {
  return async (name) => {
    const key = `${prefix}:source:${client.accountKey}:dictionary:${name}`;
    const cached = await redis.get(key);
    if (cached) return JSON.parse(cached) as DictionaryEntry[];
    const entries = await client.dictionaryEntries(name);
    await redis.set(key, JSON.stringify(entries), 'EX', CACHE_SECONDS);
    return entries;
  };
}
