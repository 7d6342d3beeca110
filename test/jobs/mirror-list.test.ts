/**
 * A HubSpot list per search (issue 23 items 2, 3): `list: {name}` holds the search's confirmed members after every
 * complete run, `onLeave: removeFromList` takes confirmed leavers out. Real HubSpot client, emulators, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { reviewLeavers } from '../../jobs/sync-search/index.js';
import { parseConfig } from '../../src/config/index.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import type { HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import { COMPANY_FILTER, companySearch, hubspotConfig, startFixture, type Fixture } from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const OUT = 2_000_000; // above the search's headcount range: the company leaves the filter

function searchYaml(extra = ''): string {
  return companySearch(
    'icp',
    `    list: {name: ICP}
    onLeave: removeFromList
${extra}`,
  );
}

/** The match keys (prospect_sync_id) of the emulator's list "ICP" members. */
function listKeys(hubspot: HubSpotEmulator): string[] {
  const list = hubspot.state.lists.byNameOf('ICP', '0-2');
  const byId = new Map(
    [...(hubspot.state.tables.get('companies')?.objects.values() ?? [])].map((o) => [
      o.id,
      o.properties.prospect_sync_id,
    ]),
  );
  return [...(list?.members.keys() ?? [])].map((id) => byId.get(id) ?? `unknown ${id}`).sort();
}

const listWrites = (hubspot: HubSpotEmulator): number => hubspot.stats.byRoute['lists.addAndRemove'] ?? 0;

describe('mirror: a HubSpot list per search', () => {
  it(
    'holds every match after run 1, loses a leaver only after 2 more complete runs, and an unchanged run writes ' +
      'nothing',
    async () => {
      const f = await startFixture('mirror-list');
      fx = f;
      const hubspot = f.hubspot!;
      const ids = (await f.oracleIds('companies', COMPANY_FILTER)).map(String).sort();
      const config = f.config(hubspotConfig(searchYaml()));
      const run = (runId: string) => syncSearch(f.deps(config), { search: 'icp', runId });

      expect(await run('r1')).toMatchObject({
        status: 'completed',
        entered: ids.length,
        listAdded: ids.length,
        listRemoved: 0,
      });
      expect(listKeys(hubspot)).toEqual(ids);

      const leaver = ids[0]!;
      f.si.setCompanyHeadcount(leaver, OUT);
      // One absence is not enough: still in the list.
      expect(await run('r2')).toMatchObject({ status: 'completed', entered: 0, left: 0, listAdded: 0, listRemoved: 0 });
      expect(listKeys(hubspot)).toEqual(ids);
      expect(await run('r3')).toMatchObject({
        status: 'completed',
        entered: 0,
        left: 1,
        leaveActions: 1,
        leaversPending: 0,
        listAdded: 0,
        listRemoved: 1,
      });
      expect(listKeys(hubspot)).toEqual(ids.filter((id) => id !== leaver));

      const writes = listWrites(hubspot);
      expect(await run('r4')).toMatchObject({ status: 'completed', entered: 0, left: 0, listAdded: 0, listRemoved: 0 });
      expect(listWrites(hubspot)).toBe(writes);
      expect(listKeys(hubspot)).toEqual(ids.filter((id) => id !== leaver));
    },
  );

  it(
    'the leave guard keeps leavers in the list; leavers --apply removes them; a leaver that re-enters is ' + 're-added',
    async () => {
      const f = await startFixture('mirror-list-guard');
      fx = f;
      const hubspot = f.hubspot!;
      const ids = (await f.oracleIds('companies', COMPANY_FILTER)).map(String).sort();
      const config = f.config(hubspotConfig(searchYaml('    leave: {confirmRuns: 1}')));
      const run = (runId: string) => syncSearch(f.deps(config), { search: 'icp', runId });
      expect(await run('g1')).toMatchObject({ status: 'completed', listAdded: ids.length });

      const half = ids.slice(0, Math.floor(ids.length / 2));
      for (const id of half) f.si.setCompanyHeadcount(id, OUT);
      // The guard holds the leavers: the forecast removes nobody from the list.
      const dry = await syncSearch(f.deps(config), { search: 'icp', runId: 'g2-dry', dryRun: true });
      expect(dry).toMatchObject({ left: half.length, leaversPending: half.length, listAdded: 0, listRemoved: 0 });
      const guarded = await run('g2');
      expect(guarded).toMatchObject({
        status: 'completed',
        left: half.length,
        leaveActions: 0,
        leaversPending: half.length,
        listAdded: 0,
        listRemoved: 0,
      });
      expect(guarded.warnings?.groups?.some((g) => g.code === 'leave_guard')).toBe(true);
      expect(listKeys(hubspot)).toEqual(ids);

      expect((await reviewLeavers(f.deps(config), 'icp', true)).applied).toEqual({
        acted: half.length,
        pending: 0,
        listRemoved: half.length,
      });
      const rest = ids.filter((id) => !half.includes(id));
      expect(listKeys(hubspot)).toEqual(rest);

      const back = half[0]!;
      f.si.setCompanyHeadcount(back, 10);
      expect(await run('g3')).toMatchObject({ status: 'completed', entered: 1, listAdded: 1, listRemoved: 0 });
      expect(listKeys(hubspot)).toEqual([...rest, back].sort());
    },
  );

  it('a dry run forecasts exactly the list adds and removes the next real run makes, and writes nothing', async () => {
    const f = await startFixture('mirror-list-forecast');
    fx = f;
    const hubspot = f.hubspot!;
    const ids = (await f.oracleIds('companies', COMPANY_FILTER)).map(String).sort();
    const [outsider, leaver, second] = [ids[0]!, ids[1]!, ids[2]!];
    const figures = ['entered', 'left', 'leaveActions', 'leaversPending', 'listAdded', 'listRemoved'] as const;
    const pick = (s: RunSummary) => Object.fromEntries(figures.map((k) => [k, s[k]]));
    // A membership kept before the search had a list: every member is "not in the list yet".
    f.si.setCompanyHeadcount(outsider, OUT);
    const before = f.config(hubspotConfig(companySearch('icp', '    leave: {confirmRuns: 1}')));
    expect(await syncSearch(f.deps(before), { search: 'icp', runId: 'f1' })).toMatchObject({
      status: 'completed',
      entered: ids.length - 1,
    });

    const config = f.config(hubspotConfig(searchYaml('    leave: {confirmRuns: 1}')));
    const run = (runId: string, dryRun = false) => syncSearch(f.deps(config), { search: 'icp', runId, dryRun });
    // The outsider enters, a member leaves (never in the list: nothing to remove).
    f.si.setCompanyHeadcount(outsider, 10);
    f.si.setCompanyHeadcount(leaver, OUT);
    const dry = await run('f2-dry', true);
    expect(hubspot.state.lists.byNameOf('ICP', '0-2')).toBeUndefined();
    const real = await run('f2');
    expect(pick(dry)).toEqual(pick(real));
    expect(pick(real)).toEqual({
      entered: 1,
      left: 1,
      leaveActions: 1,
      leaversPending: 0,
      listAdded: ids.length - 1,
      listRemoved: 0,
    });
    expect(listKeys(hubspot)).toEqual(ids.filter((id) => id !== leaver));

    // A listed member leaves and the leaver re-enters.
    f.si.setCompanyHeadcount(second, OUT);
    f.si.setCompanyHeadcount(leaver, 10);
    const writes = listWrites(hubspot);
    const dry2 = await run('f3-dry', true);
    expect(listWrites(hubspot)).toBe(writes);
    expect(listKeys(hubspot)).toEqual(ids.filter((id) => id !== leaver));
    const real2 = await run('f3');
    expect(pick(dry2)).toEqual(pick(real2));
    expect(pick(real2)).toEqual({
      entered: 1,
      left: 1,
      leaveActions: 1,
      leaversPending: 0,
      listAdded: 1,
      listRemoved: 1,
    });
    expect(listKeys(hubspot)).toEqual(ids.filter((id) => id !== second));
  });

  it(
    'after a guarded run, the forecast counts the pending leavers: those back are neither added nor removed, the ' +
      'one still out is removed',
    async () => {
      const f = await startFixture('mirror-list-forecast-pending');
      fx = f;
      const hubspot = f.hubspot!;
      const ids = (await f.oracleIds('companies', COMPANY_FILTER)).map(String).sort();
      const config = f.config(hubspotConfig(searchYaml('    leave: {confirmRuns: 1}')));
      const run = (runId: string, dryRun = false) => syncSearch(f.deps(config), { search: 'icp', runId, dryRun });
      const pick = (s: RunSummary) => ({
        entered: s.entered,
        left: s.left,
        leaveActions: s.leaveActions,
        leaversPending: s.leaversPending,
        listAdded: s.listAdded,
        listRemoved: s.listRemoved,
      });
      expect(await run('p1')).toMatchObject({ listAdded: ids.length });
      const half = ids.slice(0, Math.floor(ids.length / 2));
      for (const id of half) f.si.setCompanyHeadcount(id, OUT);
      expect(await run('p2')).toMatchObject({ leaversPending: half.length, listRemoved: 0 });

      // All but one come back: the matches are within the guard's share again, and the pending leaver still out goes.
      const [stillOut, ...back] = half;
      for (const id of back) f.si.setCompanyHeadcount(id, 10);
      const dry = await run('p3-dry', true);
      const real = await run('p3');
      expect(pick(dry)).toEqual(pick(real));
      expect(pick(real)).toEqual({
        entered: back.length,
        left: 0,
        leaveActions: 1,
        leaversPending: 0,
        listAdded: 0,
        listRemoved: 1,
      });
      expect(listKeys(hubspot)).toEqual(ids.filter((id) => id !== stillOut));
    },
  );

  it('refuses onLeave: removeFromList without list:, naming the field', () => {
    const text = hubspotConfig(searchYaml());
    const env = Object.fromEntries([...text.matchAll(/\$\{([A-Z_]+)\}/g)].map((m) => [m[1]!, 'http://127.0.0.1:1']));
    expect(parseConfig(text, 'x.yaml', env).config.searches[0]?.list).toEqual({ name: 'ICP' });
    expect(() => parseConfig(text.replace('    list: {name: ICP}\n', ''), 'x.yaml', env)).toThrow(
      /onLeave: removeFromList needs a list/,
    );
  });
});
