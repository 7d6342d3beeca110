/**
 * Refresh on change (issue 24, item 1): a search in refresh mode `changed` re-counts the partitions of its last
 * complete walk and walks only those whose count changed and its stalest share; every partition within
 * `maxAgeDays`; a resumed run keeps its plan; the mirror keeps skipped partitions' members. Real emulators, real
 * Redis, real HubSpot client; days pass on the run's clock (`SyncDeps.now`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { openSource, planNextRun, resolveSearch } from '../../jobs/sync-search/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { RefreshRegistryStore, type RefreshRegistry } from '../../src/runs/refresh-registry.js';
import { COMPANY_FILTER, companySearch, hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const DAY = 24 * 3600_000;
const MAX_AGE_DAYS = 5;

function refreshYaml(source = ''): string {
  return hubspotConfig(
    companySearch(
      'icp',
      `      numberofemployees: headcount
    refresh: {mode: changed, maxAgeDays: ${MAX_AGE_DAYS}, maxCounts: 20}
    leave: {confirmRuns: 1}
`,
    ),
    source,
  );
}

function companyProps(f: Fixture, id: string): Record<string, string | null | undefined> | undefined {
  const table = f.hubspot?.state.tables.get('companies');
  return [...(table?.objects.values() ?? [])].find((o) => o.properties.prospect_sync_id === id)?.properties;
}

/** The search's registry in the one CRM instance it wrote to. */
async function registryOf(f: Fixture): Promise<RefreshRegistry> {
  const instances = await f.redis.smembers(`${f.prefix}:refresh:{icp}:instances`);
  expect(instances).toHaveLength(1);
  const registry = await new RefreshRegistryStore(f.redis, 'icp', instances[0]!, f.prefix).load();
  expect(registry).not.toBeNull();
  return registry!;
}

describe('refresh on change', () => {
  it(
    'an unchanged re-run walks only its refresh share; a changed partition is walked and lands; no member of a ' +
      'skipped partition leaves',
    async () => {
      const f = await startFixture('refresh-change');
      fx = f;
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      let now = Date.parse('2026-03-01T06:00:00Z');
      const config = f.config(refreshYaml());
      const run = (runId: string) => syncSearch({ ...f.deps(config), now: () => now }, { search: 'icp', runId });

      const first = await run('c1');
      expect(first).toMatchObject({
        status: 'completed',
        tokensSpent: ids.length,
        entered: ids.length,
        refresh: { mode: 'changed', kept: 0, rebuilt: 'first', fullTokens: ids.length },
      });
      const built = await registryOf(f);
      expect(built.partitions.length).toBeGreaterThan(5);
      expect(built.partitions.length).toBeLessThanOrEqual(20);
      expect(built.partitions.reduce((n, p) => n + p.count, 0)).toBe(ids.length);
      // They tile the search: every record in exactly one (empty ones kept, so an entering record is counted in one).
      const members = (await Promise.all(built.partitions.map((p) => f.oracleIds('companies', p.filter)))).flat();
      expect(members.sort()).toEqual(ids);
      expect(built.partitions.some((p) => p.count === 0)).toBe(true);
      // Counts used per run stay within maxCounts (the split's, and the search's own count).
      expect(first.refresh!.counts).toBeLessThanOrEqual(20);

      now += DAY;
      const second = await run('c2');
      const after = await registryOf(f);
      const share = after.partitions.filter((p) => p.walkedAt === now);
      const holding = built.partitions.filter((p) => p.count > 0).length;
      expect(second.refresh).toMatchObject({
        kept: built.partitions.length,
        walked: { changed: 0, new: 0, stale: Math.ceil(holding / MAX_AGE_DAYS) },
      });
      expect(share).toHaveLength(second.refresh!.walked.stale);
      // Tokens: exactly the share's records, well below a full walk.
      expect(second.tokensSpent).toBe(share.reduce((n, p) => n + p.count, 0));
      expect(second.tokensSpent).toBeLessThan(ids.length / 2);
      expect(second.refresh!.counts).toBe(built.partitions.length + 1);
      // The mirror: members of skipped partitions are still members.
      expect(second).toMatchObject({ status: 'completed', entered: 0, left: 0 });

      // A company moves to another headcount inside the filter: the two partitions whose counts changed are walked,
      // and its new headcount lands in the CRM.
      const stale = new Set(share.map((p) => p.id));
      const mover = ids.find((id) => companyProps(f, id)?.numberofemployees !== '777777')!;
      f.si.setCompanyHeadcount(mover, 777_777);
      now += DAY;
      const third = await run('c3');
      expect(third.status).toBe('completed');
      expect(third.refresh!.walked.changed).toBe(2);
      expect(companyProps(f, mover)?.numberofemployees).toBe('777777');
      expect(third).toMatchObject({ entered: 0, left: 0 });
      const changed = (await registryOf(f)).partitions.filter((p) => p.walkedAt === now && !stale.has(p.id));
      expect(changed.length).toBeGreaterThanOrEqual(2);

      // A company leaves the filter: its partition's count changed, so it is walked and the company is not there. It
      // could have moved into a skipped partition (whose count then did not change), so it is held as a member until
      // every partition was walked after it went: then it is a leaver (confirmRuns 1), within maxAgeDays.
      const leaver = ids.find((id) => id !== mover)!;
      f.si.setCompanyHeadcount(leaver, 2_000_000);
      now += DAY;
      const fourth = await run('c4');
      expect(fourth).toMatchObject({ status: 'completed', entered: 0, left: 0, refresh: { held: 1 } });
      expect(fourth.refresh!.walked.changed).toBe(1);
      const leftAt: number[] = [];
      for (let day = 1; day <= MAX_AGE_DAYS; day++) {
        now += DAY;
        const s = await run(`c4-${day}`);
        if (s.left) leftAt.push(day);
        // Held until the run that confirms it left, not after.
        expect(s.refresh?.held).toBe(leftAt.length > 0 ? undefined : 1);
      }
      expect(leftAt).toHaveLength(1);

      // A full resync walks every record again (a new split).
      now += DAY;
      const resync = await syncSearch(
        { ...f.deps(config), now: () => now },
        { search: 'icp', runId: 'c5', fullResync: true },
      );
      expect(resync).toMatchObject({
        status: 'completed',
        tokensSpent: ids.length - 1,
        left: 0,
        refresh: { rebuilt: 'full_resync' },
      });
    },
    120_000,
  );

  it(
    'a member that moves into a skipped partition while another leaves it (its count unchanged) is held, not a ' +
      'leaver',
    async () => {
      const f = await startFixture('refresh-swap');
      fx = f;
      const records = await f.oracleRecords('companies', COMPANY_FILTER);
      let now = Date.parse('2026-03-01T06:00:00Z');
      const config = f.config(refreshYaml());
      const run = (runId: string) => syncSearch({ ...f.deps(config), now: () => now }, { search: 'icp', runId });
      expect(await run('s1')).toMatchObject({ status: 'completed', entered: records.length });
      now += DAY;
      await run('s2');
      // A partition walked just now (so not in the next stale share), by headcount only, holding a record.
      const fresh = (await registryOf(f)).partitions.filter(
        (p) => p.walkedAt === now && p.count > 0 && !('location' in (p.filter.company as object)),
      );
      const range = (p: { filter: Record<string, unknown> }) =>
        (p.filter.company as { headcount: { gte: number; lte?: number } }).headcount;
      const inRange = (h: number, r: { gte: number; lte?: number }) =>
        h >= r.gte && (r.lte === undefined || h <= r.lte);
      const target = fresh.find((p) => records.some((r) => inRange(Number(r.headcount), range(p))))!;
      const out = records.find((r) => inRange(Number(r.headcount), range(target)))!;
      const moved = records.find((r) => !inRange(Number(r.headcount), range(target)))!;
      f.si.setCompanyHeadcount(String(out.id), 2_000_000);
      f.si.setCompanyHeadcount(String(moved.id), range(target).gte);
      now += DAY;
      const swapped = await run('s3');
      expect(swapped.refresh!.walked.changed).toBeGreaterThanOrEqual(1);
      // Not a leaver: held, or still matched under the first walk's group while pieces of it are skipped.
      expect(swapped).toMatchObject({ status: 'completed', left: 0 });

      // Partitions that no longer tile the search (one lost from the registry): the run walks a new split, in full.
      const instance = (await f.redis.smembers(`${f.prefix}:refresh:{icp}:instances`))[0]!;
      const key = `${f.prefix}:refresh:{icp}:${instance}`;
      const registry = await registryOf(f);
      await f.redis.set(
        key,
        JSON.stringify({ ...registry, partitions: registry.partitions.filter((p) => p.count > 0).slice(1) }),
        'KEEPTTL',
      );
      now += DAY;
      const rebuilt = await run('s4');
      // The walk sees everything: the company that left while its partition was skipped is a leaver now.
      expect(rebuilt).toMatchObject({
        status: 'completed',
        tokensSpent: rebuilt.counted,
        left: 1,
        refresh: { rebuilt: 'untiled' },
      });
    },
    120_000,
  );

  it('a persons search partitions by its company filter alike: the second run walks its share', async () => {
    const f = await startFixture('refresh-persons');
    fx = f;
    const filter = { company: { headcount: { gte: 1, lte: 1000000 } } };
    const ids = await f.oracleIds('persons', filter);
    let now = Date.parse('2026-03-01T06:00:00Z');
    const config = f.config(
      hubspotConfig(`
  - name: icp
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 1000000}}}
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, lastname: lastName}
    refresh: {mode: changed, maxAgeDays: ${MAX_AGE_DAYS}, maxCounts: 20}
`),
    );
    const run = (runId: string) => syncSearch({ ...f.deps(config), now: () => now }, { search: 'icp', runId });
    expect(await run('q1')).toMatchObject({
      status: 'completed',
      tokensSpent: ids.length,
      entered: ids.length,
      refresh: { rebuilt: 'first' },
    });
    now += DAY;
    const second = await run('q2');
    expect(second).toMatchObject({ status: 'completed', entered: 0, left: 0, refresh: { walked: { changed: 0 } } });
    expect(second.tokensSpent).toBeGreaterThan(0);
    expect(second.tokensSpent).toBeLessThan(ids.length / 2);
  }, 120_000);

  it('over maxAgeDays of daily runs every partition is walked, and none is older than maxAgeDays', async () => {
    const f = await startFixture('refresh-age');
    fx = f;
    const ids = await f.oracleIds('companies', COMPANY_FILTER);
    const start = Date.parse('2026-03-01T06:00:00Z');
    let now = start;
    const config = f.config(refreshYaml());
    const run = (runId: string) => syncSearch({ ...f.deps(config), now: () => now }, { search: 'icp', runId });
    expect(await run('a0')).toMatchObject({ status: 'completed', tokensSpent: ids.length });
    let tokens = 0;
    for (let day = 1; day <= MAX_AGE_DAYS; day++) {
      now = start + day * DAY;
      // `plan` shows what the run will walk and its tokens (re-counting is free).
      const source = openSource(config, f.redis, f.prefix, silentLogger);
      const next = await planNextRun(
        { config, redis: f.redis, prefix: f.prefix, now: () => now },
        source,
        resolveSearch(config, 'icp'),
        `p${day}`,
      ).finally(() => source.close());
      const s = await run(`a${day}`);
      expect(s.tokensSpent).toBe(next.plan.tokensNeeded);
      expect(s.refresh?.walked).toEqual(next.refresh?.walked);
      expect(s).toMatchObject({ status: 'completed', left: 0 });
      expect(s.refresh!.walked.changed).toBe(0);
      tokens += s.tokensSpent;
      for (const p of (await registryOf(f)).partitions) {
        if (p.count > 0) expect(now - p.walkedAt).toBeLessThanOrEqual(MAX_AGE_DAYS * DAY);
      }
    }
    const registry = await registryOf(f);
    const holding = registry.partitions.filter((p) => p.count > 0);
    expect(holding.every((p) => p.walkedAt > start)).toBe(true);
    // Spread evenly: the interval's runs together walk about the search once.
    expect(tokens).toBeGreaterThanOrEqual(ids.length);
    expect(tokens).toBeLessThan(2 * ids.length);
  }, 120_000);

  it('a resumed run keeps the refresh plan of its first attempt: no re-count, no new selection', async () => {
    const f = await startFixture('refresh-resume');
    fx = f;
    const ids = await f.oracleIds('companies', COMPANY_FILTER);
    let now = Date.parse('2026-03-01T06:00:00Z');
    // Small pages: the second run's walk is cut after its first batch, with pages of its partitions still to walk.
    const config = f.config(refreshYaml('  pageSize: 5\n  parallelism: 2'));
    const deps = () => ({ ...f.deps(config), now: () => now });
    expect(await syncSearch(deps(), { search: 'icp', runId: 'k1' })).toMatchObject({
      status: 'completed',
      tokensSpent: ids.length,
    });
    // Companies move: the second run walks the partitions they left and entered (more than one batch's worth, so
    // the walk is cut with pages still to walk, however fast it goes), and stops after its first batch.
    for (const id of ids.filter((_, i) => i % 6 === 0)) f.si.setCompanyHeadcount(id, 900_000);
    now += DAY;
    const stop = new AbortController();
    const cut = await syncSearch(deps(), {
      search: 'icp',
      runId: 'k2',
      signal: stop.signal,
      onProgress: () => stop.abort(),
    });
    expect(cut).toMatchObject({ status: 'failed', stopReason: 'aborted' });
    const chosen = cut.refresh!;
    expect(chosen.walked.changed).toBeGreaterThan(0);
    // More changes before the resume: a new selection would differ, a re-count would show in the API's stats.
    for (const id of ids.filter((_, i) => i % 9 === 4)) f.si.setCompanyHeadcount(id, 900_000);
    expect(cut.fetched).toBeLessThan(cut.refresh!.fullTokens);
    now += DAY;
    const countsBefore = f.si.stats('worker').operations.count;
    const resumed = await syncSearch(deps(), { search: 'icp', runId: 'k2' });
    expect(f.si.stats('worker').operations.count).toBe(countsBefore);
    expect(resumed.status).toBe('completed');
    expect(resumed.refresh).toEqual({ ...chosen, counts: resumed.requests.count });
    expect(resumed.requests.count).toBe(chosen.counts);
  }, 120_000);

  it(
    'a walk of many small partitions completes on a balance just above its need: pages wait for the tokens others ' +
      'hold',
    async () => {
      // Each journey's page reserves a full page of tokens; small partitions return a few records each, so the pages in
      // flight hold far more than they spend. A page must wait for them rather than stop the run at the reserve.
      const f = await startFixture('refresh-held-tokens', { account: { tokenAllotment: 100_000 } });
      fx = f;
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      f.si.setTokenBalance('worker', Math.ceil(ids.length * 1.5));
      const config = f.config(
        hubspotConfig(
          companySearch(
            'icp',
            `      numberofemployees: headcount
`,
          ),
          '  pageSize: 100\n  parallelism: 8\n  maxJourneyRecords: 12',
        ),
      );
      const run = await syncSearch(f.deps(config), { search: 'icp', runId: 'h1' });
      expect(run.partitions).toBeGreaterThan(20);
      expect(run).toMatchObject({ status: 'completed', fetched: ids.length, created: ids.length });
    },
  );

  it(
    'the first walk makes about the search requests of a full walk; its registry is fine enough for a cheap ' +
      're-run',
    async () => {
      const f = await startFixture('refresh-first-walk');
      fx = f;
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      let now = Date.parse('2026-03-01T06:00:00Z');
      const config = f.config(
        hubspotConfig(
          companySearch('full', '      numberofemployees: headcount\n') +
            companySearch(
              'icp',
              '      numberofemployees: headcount\n    refresh: {mode: changed, maxAgeDays: 10, maxCounts: 100}\n',
            ),
        ),
      );
      const searches = (): number => f.si.stats('worker').operations.search;
      const run = async (search: string, runId: string) => {
        const before = searches();
        const summary = await syncSearch({ ...f.deps(config), now: () => now }, { search, runId });
        return { summary, searches: searches() - before };
      };
      const full = await run('full', 'f1');
      const first = await run('icp', 'c1');
      expect(first.summary).toMatchObject({
        status: 'completed',
        tokensSpent: ids.length,
        refresh: { rebuilt: 'first' },
      });
      expect(first.searches).toBeLessThanOrEqual(1.5 * full.searches);
      // The registry's pieces are finer than the walk's partitions, tile the search and stay within the count budget.
      const built = await registryOf(f);
      expect(built.partitions.length).toBeGreaterThan(2 * first.summary.partitions);
      expect(built.partitions.length).toBeLessThanOrEqual(100 - 2);
      expect(built.partitions.reduce((n, p) => n + p.count, 0)).toBe(ids.length);
      expect(first.summary.refresh!.counts).toBeLessThanOrEqual(100);
      now += DAY;
      const second = await run('icp', 'c2');
      expect(second.summary).toMatchObject({ status: 'completed', entered: 0, left: 0 });
      expect(second.summary.tokensSpent).toBeLessThanOrEqual(0.2 * first.summary.tokensSpent);
    },
  );

  it(
    'a small search is cut into pieces of at least a tenth of a page, not into more partitions than it has ' +
      'records',
    async () => {
      const f = await startFixture('refresh-small');
      fx = f;
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      const config = f.config(
        hubspotConfig(
          companySearch(
            'icp',
            `      numberofemployees: headcount
    refresh: {mode: changed, maxCounts: 500}
`,
          ),
          '  pageSize: 100',
        ),
      );
      const first = await syncSearch(f.deps(config), { search: 'icp', runId: 's1' });
      expect(first).toMatchObject({ status: 'completed', created: ids.length });
      expect(first.partitions).toBeLessThanOrEqual(Math.ceil(ids.length / 10) * 2);
      const second = await syncSearch(f.deps(config), { search: 'icp', runId: 's2' });
      expect(second.refresh?.counts).toBeLessThanOrEqual(Math.ceil(ids.length / 10) * 2 + 2);
    },
  );
});
