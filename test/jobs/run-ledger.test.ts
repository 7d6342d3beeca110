/**
 * The run ledger (jobs/sync-search/run-ledger.ts): one `commit` per batch the CRM answered books counters, warnings
 * (redacted) and link errors, moves that partition's journey and saves the checkpoint; splitting a partition and a
 * dry run go through it too. Real Redis checkpoint store, real source client against the emulator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EARLY_REFUSAL_RECORDS } from '../../jobs/sync-search/refusal-guard.js';
import { RunLedger } from '../../jobs/sync-search/run-ledger.js';
import type { RunPlan } from '../../jobs/sync-search/plan-run.js';
import { compileFieldMapping, summarize, type WriteOutcome } from '../../src/crm/index.js';
import { CheckpointStore, type RunCheckpoint } from '../../src/runs/checkpoint-store.js';
import type { RunProgress } from '../../src/runs/progress-bar.js';
import type { RefreshState } from '../../src/runs/refresh-registry.js';
import { emptyCounts } from '../../src/runs/run-counters.js';
import { runKeys } from '../../src/runs/run-keys.js';
import type { JourneyCheckpoint, JourneyPage, PartitionProgress, SourceClient } from '../../src/source/index.js';
import { testRedis } from '../helpers/redis.js';
import { sourceFixture, type SourceFixture } from '../source/source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const plan = {
  counted: 500,
  target: 500,
  partitions: [
    { filter: { a: 1 }, count: 300 },
    { filter: { a: 2 }, count: 200 },
  ],
} as unknown as RunPlan;

const state = (fetched: number): JourneyCheckpoint => ({
  mode: 'cursor',
  cursor: `c${fetched}`,
  offset: 0,
  fetched,
  fingerprint: 'f',
});

function batch(ids: string[], returned: number, done = false): JourneyPage {
  return {
    records: ids.map((id) => ({ id })),
    returned,
    duplicates: returned - ids.length,
    checkpoint: state(returned),
    tokensCharged: returned,
    creditsCharged: 0,
    restarted: false,
    done,
  };
}

async function ledgerOver(dryRun = false) {
  fx = await sourceFixture();
  const store = new CheckpointStore<JourneyCheckpoint>(fx.redis, 'ledger-test', { prefix: fx.prefix });
  const progress: RunProgress[] = [];
  const ledger = new RunLedger({
    store,
    source: fx.client,
    resumed: null,
    started: Date.now(),
    startedAt: new Date().toISOString(),
    request: { runId: 'run-1', dryRun, onProgress: (p) => progress.push(p) },
  });
  ledger.begin(plan, true);
  return { ledger, store, progress };
}

describe('the run ledger', () => {
  it('one commit books counters, warnings and link errors, moves that partition and saves', async () => {
    const { ledger, store, progress } = await ledgerOver();
    const outcomes: WriteOutcome[] = [
      { key: 'a', status: 'created', crmId: '1' },
      { key: 'b', status: 'updated', crmId: '2', linkError: 'company not found' },
      { key: 'c', status: 'rejected', code: 'INVALID', reason: 'bad email jane.doe@example.com' },
    ] as WriteOutcome[];
    await ledger.commit(1, batch(['a', 'b', 'c'], 4), summarize(outcomes));

    const saved = await store.load('run-1');
    expect(saved?.partitions[1]).toMatchObject({ filter: { a: 2 }, count: 200, state: state(4), done: false });
    expect(saved?.partitions[0]).toMatchObject({ state: null, done: false });
    expect(saved?.counts).toMatchObject({ fetched: 4, unique: 3, created: 1, updated: 1, rejected: 1, tokensSpent: 4 });
    expect(saved?.linkErrors).toBe(1);
    expect(saved?.warnings?.count).toBe(2);
    expect(JSON.stringify(saved?.warnings)).not.toContain('jane.doe@example.com');
    expect(progress.at(-1)).toMatchObject({ fetched: 4, target: 500 });

    // the partition's last batch: walked to its end, no journey state kept
    await ledger.commit(1, batch(['d'], 1, true), summarize([{ key: 'd', status: 'unchanged' }]));
    expect((await store.load('run-1'))?.partitions[1]).toMatchObject({ state: null, done: true });
    expect(ledger.unwalked()).toEqual([0]);
    expect(ledger.counts()).toMatchObject({ fetched: 5, unchanged: 1 });
  });

  it('a partition split mid-walk is done, its pieces are added (saved) with new indices to walk', async () => {
    const { ledger, store } = await ledgerOver();
    expect(
      await ledger.replace(0, [
        { a: 1, b: 1 },
        { a: 1, b: 2 },
      ]),
    ).toEqual([2, 3]);
    const saved = await store.load('run-1');
    expect(saved?.partitions.map((p) => [p.filter, p.done])).toEqual([
      [{ a: 1 }, true],
      [{ a: 2 }, false],
      [{ a: 1, b: 1 }, false],
      [{ a: 1, b: 2 }, false],
    ]);
    expect(ledger.unwalked()).toEqual([1, 2, 3]);
  });

  it('a dry run counts what it would write and saves nothing', async () => {
    const { ledger, store } = await ledgerOver(true);
    await ledger.commit(0, batch(['a'], 1), summarize([{ key: 'a', status: 'created', crmId: '' } as WriteOutcome]));
    expect(ledger.counts()).toMatchObject({ fetched: 1, created: 1 });
    expect(await store.load('run-1')).toBeNull();
  });
});

/** A source client that only counts: its attempt figures are set by the test, its reveal bookings recorded. */
function countingSource(stats: { tokensSpent?: number; creditsSpent?: number; search?: number; throttled?: number }) {
  const booked: { runId: string; revealed: readonly string[]; tally: ReadonlyMap<number, number> }[] = [];
  const source = {
    stats: () => ({
      tokensSpent: stats.tokensSpent ?? 0,
      creditsSpent: stats.creditsSpent ?? 0,
      requests: { search: stats.search ?? 0, count: 1, dictionary: 0, token: 0, other: 0 },
      throttled: stats.throttled ?? 0,
    }),
    bookReveals: async (runId: string, revealed: readonly string[], tally: ReadonlyMap<number, number>) => {
      booked.push({ runId, revealed, tally });
    },
  } as unknown as SourceClient;
  return { source, booked };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function ledgerWith(
  options: {
    dryRun?: boolean;
    resumed?: RunCheckpoint<JourneyCheckpoint> | null;
    stats?: Parameters<typeof countingSource>[0];
    matched?: (keys: string[], filter: Record<string, unknown>) => Promise<void>;
    started?: number;
    /** No one listens to the run's progress. */
    silent?: boolean;
  } = {},
) {
  const { redis, prefix, cleanup } = await testRedis('ledger');
  cleanups.push(cleanup);
  const store = new CheckpointStore<JourneyCheckpoint>(redis, 'ledger-test', { prefix });
  const { source, booked } = countingSource(options.stats ?? {});
  const progress: RunProgress[] = [];
  const ledger = new RunLedger({
    store,
    source,
    resumed: options.resumed ?? null,
    started: options.started ?? Date.now(),
    startedAt: '2026-11-27T10:00:00.000Z',
    request: {
      runId: 'run-1',
      dryRun: options.dryRun ?? false,
      ...(options.silent ? {} : { onProgress: (p: RunProgress) => progress.push(p) }),
    },
    ...(options.matched ? { matched: options.matched } : {}),
  });
  return { ledger, store, booked, progress, redis, prefix };
}

const mapping = compileFieldMapping(
  {
    matchOn: { field: 'prospect_sync_id', from: 'id' },
    fields: { jobtitle: 'job_title', email: 'contacts.email', source: { value: 'prospect-sync' } },
  },
  { object: 'contacts' },
);

describe('the run ledger, book by book', () => {
  it('before begin it holds nothing, saves nothing and answers with empty figures', async () => {
    const { ledger, store } = await ledgerWith();
    expect([ledger.kept, ledger.fetched, ledger.size, ledger.checkpoint]).toEqual([0, 0, 0, undefined]);
    expect(ledger.partition(0)).toBeUndefined();
    expect(ledger.unwalked()).toEqual([]);
    expect(ledger.findings).toEqual({});
    expect(ledger.counts()).toMatchObject({ fetched: 0, requests: { search: 0, count: 1 } });
    expect(
      ledger.addPlanned({
        settled: [{ filter: { a: 3 }, count: 5, headcount: { gte: 1, lte: 5 } }],
        pending: [],
        countsLeft: 0,
      }).added,
    ).toEqual([]);
    expect(await ledger.replace(0, [{ a: 9 }])).toEqual([]);
    ledger.walked(0);
    ledger.restart(0);
    await ledger.commit(0, batch(['a'], 1), summarize([{ key: 'a', status: 'created', crmId: '1' }]));
    await ledger.save();
    await ledger.end({ keep: true }, () => undefined);
    expect(await store.load('run-1')).toBeNull();
  });

  it('a new run starts over the plan: its id, start, counted, partitions, the plan and the refresh', async () => {
    const { ledger, store } = await ledgerWith();
    const refresh: RefreshState = {
      instance: 'i',
      fingerprint: 'f',
      at: 1,
      kept: 2,
      walked: { changed: 1, new: 0, stale: 1 },
      skipped: [],
    };
    ledger.begin(plan, false, refresh);
    await ledger.save();
    expect(await store.load('run-1')).toMatchObject({
      runId: 'run-1',
      startedAt: '2026-11-27T10:00:00.000Z',
      counted: 500,
      partitions: [
        { filter: { a: 1 }, count: 300, state: null, done: false },
        { filter: { a: 2 }, count: 200, state: null, done: false },
      ],
      plan: { complete: false, pending: [], countsLeft: 0 },
      refresh,
    });
    expect([ledger.size, ledger.partition(1)?.filter]).toEqual([2, { a: 2 }]);
    const plain = await ledgerWith();
    plain.ledger.begin(plan, true);
    expect(plain.ledger.checkpoint).not.toHaveProperty('refresh');
    expect(plain.ledger.checkpoint?.plan).toEqual({ complete: true, pending: [], countsLeft: 0 });
  });

  it('a streamed plan adds its settled partitions with indices to walk, complete once nothing is pending', async () => {
    const { ledger, store } = await ledgerWith();
    ledger.begin(plan, false);
    const pending: PartitionProgress['pending'] = [{ gte: 10, lte: 20, count: 40 }];
    const first = ledger.addPlanned({
      settled: [{ filter: { a: 3 }, count: 7, headcount: { gte: 1, lte: 5 } }],
      pending,
      countsLeft: 2,
    });
    expect(first.added).toEqual([2]);
    await first.saved;
    expect((await store.load('run-1'))?.plan).toEqual({ complete: false, pending, countsLeft: 2 });
    expect(ledger.partition(2)).toEqual({ filter: { a: 3 }, count: 7, state: null, done: false });
    const last = ledger.addPlanned({
      settled: [
        { filter: { a: 4 }, count: 1, headcount: { gte: 6, lte: 6 } },
        { filter: { a: 5 }, count: 2, headcount: { gte: 7, lte: 9 } },
      ],
      pending: [],
      countsLeft: 0,
    });
    expect(last.added).toEqual([3, 4]);
    await last.saved;
    expect((await store.load('run-1'))?.plan).toEqual({ complete: true, pending: [], countsLeft: 0 });
    expect(ledger.unwalked()).toEqual([0, 1, 2, 3, 4]);
  });

  it('a resumed run goes on from its checkpoint, its earlier counters kept apart from this attempt', async () => {
    const earlier = {
      runId: 'run-1',
      startedAt: '2026-11-26T10:00:00.000Z',
      counted: 500,
      counts: {
        ...emptyCounts(),
        fetched: 40,
        unique: 40,
        created: 40,
        tokensSpent: 40,
        requests: { search: 2, count: 3 },
        throttled: 1,
      },
      partitions: [
        { filter: { a: 1 }, count: 300, state: state(40), done: false },
        { filter: { a: 2 }, count: 200, state: null, done: true },
      ],
    };
    // this attempt's client: 2 searches, one 429, and a page it was charged 15 tokens for that never answered
    const { ledger, store } = await ledgerWith({
      resumed: structuredClone(earlier),
      stats: { tokensSpent: 25, search: 2, throttled: 1 },
    });
    expect(ledger.counts()).toMatchObject({ fetched: 40, tokensSpent: 65, requests: { search: 4, count: 4 } });
    ledger.begin(plan, true);
    expect([ledger.kept, ledger.fetched, ledger.unwalked()]).toEqual([40, 40, [0]]);
    expect(ledger.partition(0)?.state).toEqual(state(40));
    await ledger.commit(0, batch(['x'], 10), summarize([{ key: 'x', status: 'created', crmId: '9' }]));
    expect(ledger.counts()).toMatchObject({
      fetched: 50,
      unique: 41,
      created: 41,
      tokensSpent: 65,
      requests: { search: 4, count: 4 },
      throttled: 2,
    });
    expect((await store.load('run-1'))?.counts).toMatchObject({
      requests: { search: 4, count: 4 },
      throttled: 2,
    });
    expect((await store.load('run-1'))?.startedAt).toBe('2026-11-26T10:00:00.000Z');
  });

  it('a commit books links, reveals, matched keys and progress; a dry run books no reveals', async () => {
    const matched: [string[], Record<string, unknown>][] = [];
    const { ledger, booked, progress } = await ledgerWith({
      matched: async (keys, filter) => {
        matched.push([keys, filter]);
      },
      started: Date.now() - 5_000,
      stats: {},
    });
    ledger.begin(plan, true);
    const revealed: JourneyPage = {
      ...batch(['p1', 'p2'], 2),
      tokensCharged: 2,
      creditsCharged: 6,
      revealed: ['p1', 'p2'],
      revealTally: new Map([[20_000, 2]]),
    };
    const outcomes: WriteOutcome[] = [
      { key: 'p1', status: 'created', crmId: '1', linked: true },
      { key: 'p2', status: 'updated', crmId: '2', linkError: 'company c-9 not found' },
    ] as WriteOutcome[];
    await ledger.commit(1, revealed, summarize(outcomes));
    expect(booked).toEqual([{ runId: 'run-1', revealed: ['p1', 'p2'], tally: new Map([[20_000, 2]]) }]);
    expect(matched).toEqual([[['p1', 'p2'], { a: 2 }]]);
    expect(progress).toHaveLength(1);
    expect(progress[0]).toMatchObject({ fetched: 2, target: 500, tokensSpent: 2, creditsSpent: 6 });
    expect(progress[0]?.elapsedMs).toBeGreaterThanOrEqual(5_000);
    expect(progress[0]?.elapsedMs).toBeLessThan(60_000);
    expect(ledger.findings).toEqual({
      linkErrors: 1,
      links: { company: { linked: 1, linkFailed: 1 } },
      warnings: {
        count: 1,
        first: ['link failed: company c-9 not found'],
        groups: [{ code: 'link_failed', count: 1, example: 'company c-9 not found' }],
      },
      partitions: 2,
    });
    // no tally given: an empty one is booked
    await ledger.commit(1, { ...batch(['p3'], 1), revealed: ['p3'] }, summarize([]));
    expect(booked[1]?.tally).toEqual(new Map());
    // links only, no errors: links reported, no link errors
    const linkedOnly = await ledgerWith();
    linkedOnly.ledger.begin(plan, true);
    await linkedOnly.ledger.commit(
      0,
      batch(['q'], 1),
      summarize([{ key: 'q', status: 'created', crmId: '1', linked: true }] as WriteOutcome[]),
    );
    expect(linkedOnly.ledger.findings).toEqual({ links: { company: { linked: 1, linkFailed: 0 } }, partitions: 2 });
    // a created record whose link failed is warned like an updated one
    await linkedOnly.ledger.commit(
      0,
      batch(['r'], 1),
      summarize([{ key: 'r', status: 'created', crmId: '2', linkError: 'company c-7 not found' }] as WriteOutcome[]),
    );
    expect(linkedOnly.ledger.findings.warnings?.first).toEqual(['link failed: company c-7 not found']);

    const dry = await ledgerWith({ dryRun: true });
    dry.ledger.begin(plan, true);
    await dry.ledger.commit(0, revealed, summarize(outcomes));
    expect(dry.booked).toEqual([]);
  });

  it('a matched-key failure leaves the partition where it was: the batch is committed again on resume', async () => {
    const { ledger, store } = await ledgerWith({
      matched: async () => {
        throw new Error('redis down');
      },
    });
    ledger.begin(plan, true);
    await expect(
      ledger.commit(0, batch(['a'], 1), summarize([{ key: 'a', status: 'created', crmId: '1' }])),
    ).rejects.toThrow('redis down');
    expect(ledger.partition(0)?.state).toBeNull();
    expect(await store.load('run-1')).toBeNull();
    // The CRM holds the batch: this attempt's figures count it, the checkpoint (walked again on resume) does not.
    expect(ledger.counts()).toMatchObject({ fetched: 1, unique: 1, created: 1, tokensSpent: 1 });
    await ledger.end({ keep: true }, (err) => {
      throw err;
    });
    expect((await store.load('run-1'))?.counts).toMatchObject({ fetched: 0, unique: 0, created: 0 });
  });

  it('what the CRM answered of a batch not committed counts only if the CRM took a record of it', async () => {
    const { ledger } = await ledgerWith();
    ledger.begin(plan, true);
    ledger.uncommitted([{ key: 'a', status: 'unchanged' }, undefined], batch(['a', 'b'], 2));
    expect(ledger.counts()).toMatchObject({ fetched: 0, unchanged: 0 });
    ledger.uncommitted([
      { key: 'a', status: 'unchanged' },
      { key: 'b', status: 'updated', crmId: '2' },
    ]);
    expect(ledger.counts()).toMatchObject({ fetched: 0, unchanged: 1, updated: 1 });
  });

  it('rejected records are warned with their code, field and redacted reason, one line each', async () => {
    const { ledger } = await ledgerWith();
    ledger.begin(plan, true);
    const outcomes = [
      { key: 'a', status: 'rejected', code: 'INVALID_EMAIL', field: 'email', reason: 'bad value ann@example.com' },
      { key: 'b', status: 'rejected', code: 'CONFLICT', reason: 'duplicate' },
      { key: 'c', status: 'unchanged' },
    ] as WriteOutcome[];
    await ledger.commit(0, batch(['a', 'b', 'c'], 3), summarize(outcomes));
    const warnings = ledger.findings.warnings;
    expect(warnings?.count).toBe(2);
    expect(warnings?.first).toHaveLength(2);
    expect(warnings?.first[0]).toMatch(/^rejected \(INVALID_EMAIL\): bad value /);
    expect(warnings?.first[1]).toBe('rejected (CONFLICT): duplicate');
    expect(JSON.stringify(warnings)).not.toContain('ann@example.com');
    expect(warnings?.groups).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'INVALID_EMAIL', field: 'email', count: 1 }),
        { code: 'CONFLICT', count: 1, example: 'duplicate' },
      ]),
    );
    expect(ledger.findings).not.toHaveProperty('linkErrors');
    expect(ledger.findings).not.toHaveProperty('links');
    // a reason without a field is grouped without one; nothing linked, nothing failed: no link figures kept
    expect(warnings?.groups?.find((g) => g.code === 'CONFLICT')).not.toHaveProperty('field');
    expect(Object.keys(ledger.checkpoint ?? {})).not.toContain('linkErrors');
    expect(Object.keys(ledger.checkpoint ?? {})).not.toContain('linked');
    // a batch with nothing to warn about leaves the warnings as they were (not cleared)
    await ledger.commit(0, batch(['d'], 1), summarize([{ key: 'd', status: 'unchanged' }]));
    expect(ledger.findings.warnings?.count).toBe(2);
    const quiet = await ledgerWith({ silent: true });
    quiet.ledger.begin(plan, true);
    await quiet.ledger.commit(0, batch(['e'], 1), summarize([{ key: 'e', status: 'unchanged' }]));
    expect(Object.keys(quiet.ledger.checkpoint ?? {})).not.toContain('warnings');
  });

  it('paths absent in every record are warned once at the end; contacts left out by design are not', async () => {
    const { ledger, store } = await ledgerWith();
    ledger.begin(plan, true);
    const records = [{ id: 'a' }, { id: 'b' }];
    // before the CRM end is open nothing is tallied
    await ledger.commit(0, { ...batch([], 2), records }, summarize([]));
    expect(ledger.checkpoint?.absentPaths).toBeUndefined();
    ledger.writesThrough(mapping);
    await ledger.commit(0, { ...batch([], 2), records }, summarize([]));
    expect(ledger.findings.warnings?.first).toEqual([
      'mapped path job_title was absent in 2 of 2 records',
      'mapped path contacts.email was absent in 2 of 2 records',
    ]);
    expect(ledger.findings.warnings?.groups?.[0]).toMatchObject({ code: 'absent_path', count: 2 });
    // said at the end only: not in the saved checkpoint's warnings
    expect((await store.load('run-1'))?.warnings).toBeUndefined();
    for (const page of [
      { ...batch([], 2), records, revealSkipped: 0 },
      { ...batch([], 2), records, contactsLeftOut: true },
    ]) {
      const other = await ledgerWith();
      other.ledger.begin(plan, true);
      other.ledger.writesThrough(mapping);
      await other.ledger.commit(0, page, summarize([]));
      expect(other.ledger.findings.warnings?.first).toEqual(['mapped path job_title was absent in 2 of 2 records']);
    }
    const notLeftOut = await ledgerWith();
    notLeftOut.ledger.begin(plan, true);
    notLeftOut.ledger.writesThrough(mapping);
    await notLeftOut.ledger.commit(0, { ...batch([], 2), records, contactsLeftOut: false }, summarize([]));
    expect(notLeftOut.ledger.findings.warnings?.first).toHaveLength(2);
  });

  it('walked, restart and an unknown index move only what they name', async () => {
    const { ledger } = await ledgerWith();
    ledger.begin(plan, true);
    await ledger.commit(0, batch(['a'], 1), summarize([{ key: 'a', status: 'created', crmId: '1' }]));
    expect(ledger.partition(0)).toMatchObject({ state: state(1), done: false, count: 300 });
    ledger.restart(0);
    expect(ledger.partition(0)).toEqual({ filter: { a: 1 }, count: 300, state: null, done: false });
    ledger.walked(1);
    expect(ledger.partition(1)).toEqual({ filter: { a: 2 }, count: 200, state: null, done: true });
    ledger.walked(7);
    expect(ledger.size).toBe(2);
    expect(ledger.unwalked()).toEqual([0]);
  });

  it('the end clears the checkpoint or keeps it for the TTL asked; a save error is handed over', async () => {
    const cleared = await ledgerWith();
    cleared.ledger.begin(plan, true);
    await cleared.ledger.save();
    expect(await cleared.store.load('run-1')).not.toBeNull();
    await cleared.ledger.end({ keep: false }, () => undefined);
    expect(await cleared.store.load('run-1')).toBeNull();

    const kept = await ledgerWith({ stats: { tokensSpent: 30, search: 3 } });
    kept.ledger.begin(plan, true);
    await kept.ledger.end({ keep: true, ttlMs: 3_600_000 }, () => undefined);
    // the client's worst case of pages never answered counts in what a resumed attempt finds
    expect((await kept.store.load('run-1'))?.counts).toMatchObject({ tokensSpent: 30, requests: { search: 3 } });
    const ttl = await kept.redis.pttl(runKeys('ledger-test', kept.prefix).checkpoint);
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);

    const failing = await ledgerWith();
    failing.ledger.begin(plan, true);
    const errors: unknown[] = [];
    const broken = failing.store as unknown as { save: () => Promise<void> };
    broken.save = async () => {
      throw new Error('READONLY');
    };
    await failing.ledger.end({ keep: true }, (err) => errors.push(err));
    expect(errors).toEqual([new Error('READONLY')]);

    const dry = await ledgerWith({ dryRun: true });
    dry.ledger.begin(plan, true);
    await dry.ledger.end({ keep: true }, () => undefined);
    expect(await dry.store.load('run-1')).toBeNull();
  });

  it('the first writes all refused for one reason stop the run, after the batch is saved', async () => {
    const { ledger, store } = await ledgerWith();
    ledger.begin(plan, true);
    expect(ledger.writeBatch(2_000)).toBe(EARLY_REFUSAL_RECORDS);
    const keys = Array.from({ length: EARLY_REFUSAL_RECORDS }, (_, i) => `k${i}`);
    const refused = keys.map((key) => ({ key, status: 'rejected', code: 'INVALID', reason: 'no' }) as WriteOutcome);
    await expect(ledger.commit(0, batch(keys, keys.length), summarize(refused))).rejects.toMatchObject({
      code: 'crm_refused_all',
    });
    expect((await store.load('run-1'))?.counts.rejected).toBe(EARLY_REFUSAL_RECORDS);
    expect(ledger.writeBatch(2_000)).toBe(2_000);
  });
});
