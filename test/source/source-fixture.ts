import {
  startSalesIntelEmulator,
  type SalesIntelEmulator,
  type SalesIntelEmulatorOptions,
} from '../../src/emulators/sales-intel/index.js';
import { createSourceClient, type SourceClient, type SourceClientOptions } from '../../src/source/index.js';
import { testRedis } from '../helpers/redis.js';
import type { Redis } from 'ioredis';

export interface SourceFixture {
  emu: SalesIntelEmulator;
  client: SourceClient;
  redis: Redis;
  prefix: string;
  /** Another client (another "process") on the same account and Redis state. */
  newClient(overrides?: Partial<SourceClientOptions>): SourceClient;
  close(): Promise<void>;
}

/** A real emulator over HTTP, a real Redis namespace, and a client with fast retries. */
export async function sourceFixture(
  emulator: SalesIntelEmulatorOptions = {},
  client: Partial<SourceClientOptions> = {},
): Promise<SourceFixture> {
  const emu = await startSalesIntelEmulator({ companies: 2000, persons: 4000, windowSeconds: 1, ...emulator });
  const { redis, prefix, cleanup } = await testRedis('source');
  const clients: SourceClient[] = [];
  const newClient = (overrides: Partial<SourceClientOptions> = {}): SourceClient => {
    const c = createSourceClient({
      baseUrl: emu.url,
      auth: { tokenUrl: emu.tokenUrl, clientId: 'demo-client', clientSecret: 'demo-secret' },
      redis,
      keyPrefix: prefix,
      fallbackLimits: { search: 500, count: 500, dictionary: 500, windowSeconds: 1 },
      retry: { baseDelayMs: 10, maxDelayMs: 40 },
      requestTimeoutMs: 5000,
      ...client,
      ...overrides,
    });
    clients.push(c);
    return c;
  };
  return {
    emu,
    client: newClient(),
    redis,
    prefix,
    newClient,
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
      await emu.close();
      await cleanup();
    },
  };
}

/** Walks a journey to the end and returns the records it emitted. */
export async function walkAll(client: SourceClient, ...args: Parameters<SourceClient['journey']>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const page of client.journey(...args)) out.push(...page.records);
  return out;
}

/** Walks a journey until it ends or throws: what each page returned, their sum, and the error if one stopped it. */
export async function walkUntilStop(
  client: SourceClient,
  ...args: Parameters<SourceClient['journey']>
): Promise<{ pages: number[]; returned: number; error: unknown }> {
  const pages: number[] = [];
  let error: unknown;
  try {
    for await (const page of client.journey(...args)) pages.push(page.returned);
  } catch (e) {
    error = e;
  }
  return { pages, returned: pages.reduce((a, b) => a + b, 0), error };
}

export function ids(records: unknown[], field = 'id'): string[] {
  return records.map((r) => String((r as Record<string, unknown>)[field]));
}
