import { afterEach, describe, expect, it } from 'vitest';
import {
  CheckpointMismatchError,
  CursorFilterMismatchError,
  OffsetLimitError,
  fingerprintJourney,
  type JourneyCheckpoint,
} from '../../src/source/index.js';
import { ids, sourceFixture, walkAll, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const filter = { company: { headcount: { gte: 5 } } };

describe('cursor journeys against the emulator', () => {
  it('walks every match once, through a base URL with a path prefix, in both cursor styles', async () => {
    for (const cursorStyle of ['json-v1', 'compact-v2'] as const) {
      fx = await sourceFixture({ basePath: '/api/v2', cursorStyle });
      expect(fx.emu.url).toMatch(/\/api\/v2$/);
      const total = await fx.client.count('companies', filter);
      const records = await walkAll(fx.client, 'companies', filter, { runId: 'r', pageSize: 100 });
      expect(records).toHaveLength(total);
      expect(new Set(ids(records)).size).toBe(total);
      const stats = fx.client.stats();
      expect(stats.requests.search).toBe(Math.ceil(total / 100));
      expect(stats.tokensSpent).toBe(fx.emu.stats('demo').tokensCharged);
      await fx.close();
      fx = undefined;
    }
  });

  it('deduplicates by a configurable id path (snake record style)', async () => {
    fx = await sourceFixture({ recordStyle: 'snake' });
    const filterP = { company: { headcount: { gte: 1000 } } };
    const total = await fx.client.count('persons', filterP);
    const first = await walkAll(fx.client, 'persons', filterP, { runId: 'run-1', idField: 'company_id', pageSize: 50 });
    const companies = new Set(ids(first, 'company_id'));
    // Only one person per company survives: dedup keys on the configured path.
    expect(first).toHaveLength(companies.size);
    expect(companies.size).toBeLessThan(total);
    expect(fx.client.stats().duplicatesDropped).toBe(total - companies.size);
  });

  it('resumes from a saved checkpoint and refuses a checkpoint of another body', async () => {
    fx = await sourceFixture();
    const all = ids(await walkAll(fx.client, 'companies', filter, { runId: 'full' }));
    let saved: JourneyCheckpoint | undefined;
    const head: unknown[] = [];
    for await (const page of fx.client.journey('companies', filter, { runId: 'part', pageSize: 40 })) {
      head.push(...page.records);
      saved = page.checkpoint;
      if (head.length >= 120) break;
    }
    expect(saved?.fetched).toBe(120);
    const tail = await walkAll(fx.client, 'companies', filter, { runId: 'part-2', pageSize: 40, checkpoint: saved });
    expect([...ids(head), ...ids(tail)]).toEqual(all);
    await expect(
      walkAll(
        fx.client,
        'companies',
        { company: { headcount: { gte: 6 } } },
        { runId: 'x', pageSize: 40, checkpoint: saved },
      ),
    ).rejects.toBeInstanceOf(CheckpointMismatchError);
    // A cursor sent with another body: the API's cursor_filter_mismatch surfaces typed (never retried).
    const other = { company: { headcount: { gte: 7 } } };
    const forged = { ...saved!, fingerprint: fingerprintJourney('companies', JSON.stringify(other), [], 'cursor') };
    await expect(
      walkAll(fx.client, 'companies', other, { runId: 'y', pageSize: 40, checkpoint: forged }),
    ).rejects.toBeInstanceOf(CursorFilterMismatchError);
  });

  it('restarts from page 1 on invalid_cursor without emitting a record twice', async () => {
    fx = await sourceFixture();
    const total = await fx.client.count('companies', filter);
    const out: unknown[] = [];
    let restartedPages = 0;
    let pages = 0;
    for await (const page of fx.client.journey('companies', filter, { runId: 'r', pageSize: 100 })) {
      out.push(...page.records);
      if (page.restarted) restartedPages++;
      if (++pages === 5) fx.emu.faults.set({ forceInvalidCursor: 1 });
    }
    expect(restartedPages).toBe(1);
    expect(fx.client.stats().journeyRestarts).toBe(1);
    expect(out).toHaveLength(total);
    expect(new Set(ids(out)).size).toBe(total);
    expect(fx.client.stats().duplicatesDropped).toBe(500);
  });

  it('keeps the token across expiry mid-journey (one refresh, one retry)', async () => {
    fx = await sourceFixture();
    const total = await fx.client.count('companies', filter);
    const out: unknown[] = [];
    let pages = 0;
    for await (const page of fx.client.journey('companies', filter, { runId: 'r', pageSize: 100 })) {
      out.push(...page.records);
      if (++pages === 3) fx.emu.expireAllTokens();
    }
    expect(new Set(ids(out)).size).toBe(total);
    expect(fx.client.stats().requests.token).toBe(2);
    expect(fx.client.stats().unauthorizedRetries).toBe(1);
    expect(fx.emu.stats().served401).toBe(1);
  });

  it('loses and doubles nothing under live-index churn (dedup + one sweep)', async () => {
    fx = await sourceFixture();
    const before = new Set(ids(await walkAll(fx.client, 'companies', filter, { runId: 'before' })));
    // Insertions behind the cursor repeat records (duplicates); removals behind it skip records (losses).
    fx.emu.faults.set({ churn: { insertPerPage: 3, removePerPage: 0 } });
    const out: unknown[] = [];
    let duplicates = 0;
    let pages = 0;
    for await (const page of fx.client.journey('companies', filter, { runId: 'r', pageSize: 50, sweepPasses: 2 })) {
      if (++pages === 8) fx.emu.faults.set({ churn: { insertPerPage: 0, removePerPage: 3 } });
      // The index settles once the first walk is over; the sweep then finds what the churn made us skip.
      if ((page.checkpoint.pass ?? 1) > 1) fx.emu.faults.set({ churn: null });
      out.push(...page.records);
      duplicates += page.duplicates;
    }
    const log = fx.emu.faults.churnLog();
    expect(log.removed.length).toBeGreaterThan(0);
    const outIds = ids(out);
    expect(new Set(outIds).size).toBe(outIds.length);
    expect(duplicates).toBeGreaterThan(0);
    const removed = new Set(log.removed);
    const present = [...before, ...log.inserted].filter((id) => !removed.has(id));
    const got = new Set(outIds);
    expect(present.filter((id) => !got.has(id))).toEqual([]);
  });
});

describe('offset journeys (sorted top-N)', () => {
  it('returns the top N sorted, sizing the last page to N', async () => {
    fx = await sourceFixture();
    const body = {
      company: { headcount: { gte: 1 } },
      options: { sortFields: [{ field: 'headcount', direction: 'DESC' }] },
    };
    const pages = [];
    for await (const page of fx.client.journey('companies', body, { runId: 'top', mode: 'offset', maxRecords: 250 }))
      pages.push(page);
    const records = pages.flatMap((p) => p.records) as { headcount: number }[];
    expect(records).toHaveLength(250);
    expect(pages.map((p) => p.returned)).toEqual([100, 100, 50]);
    expect(pages[0]?.total).toBe(await fx.client.count('companies', body));
    for (let i = 1; i < records.length; i++)
      expect(records[i - 1]!.headcount).toBeGreaterThanOrEqual(records[i]!.headcount);
    expect(fx.emu.stats('demo').tokensCharged).toBe(250);
  });

  it('refuses configs that would need an offset above 10,000', async () => {
    fx = await sourceFixture();
    await expect(
      walkAll(fx.client, 'companies', {}, { runId: 'r', mode: 'offset', maxRecords: 10_101 }),
    ).rejects.toBeInstanceOf(OffsetLimitError);
    await expect(walkAll(fx.client, 'companies', {}, { runId: 'r', mode: 'offset' })).rejects.toBeInstanceOf(
      OffsetLimitError,
    );
    expect(fx.emu.stats().operations.search).toBe(0);
  });
});
