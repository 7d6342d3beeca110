/**
 * The mirror (issue 23): membership per search and CRM instance, leavers confirmed over complete runs only,
 * `onLeave: setFields` written through the real HubSpot client, the leave guard. Real emulators, real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { reviewLeavers } from '../../jobs/sync-search/index.js';
import type { HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import {
  COMPANY_FILTER,
  companySearch,
  HUBSPOT_TOKEN,
  hubspotConfig,
  startFixture,
  type Fixture,
} from './sync-fixture.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const OUT = 2_000_000; // above the search's headcount range: the company leaves the filter

function searchYaml(extra: string): string {
  return companySearch(
    'icp',
    `      si_in_search: {value: true}
    onLeave:
      setFields: {si_in_search: false, si_left_at: $now}
${extra}`,
  );
}

async function createProperties(hubspot: HubSpotEmulator): Promise<void> {
  for (const [name, type, fieldType] of [
    ['si_in_search', 'bool', 'booleancheckbox'],
    ['si_left_at', 'string', 'text'],
  ]) {
    const res = await fetch(`${hubspot.url}/crm/v3/properties/companies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HUBSPOT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, label: name, type, fieldType, groupName: 'companyinformation' }),
    });
    expect(res.status).toBe(201);
  }
}

function companyProps(hubspot: HubSpotEmulator, id: string): Record<string, string | null | undefined> | undefined {
  const table = hubspot.state.tables.get('companies');
  return [...(table?.objects.values() ?? [])].find((o) => o.properties.prospect_sync_id === id)?.properties;
}

describe('mirror', () => {
  it(
    'a company that leaves is left only after 2 complete runs (never a capped or aborted one), gets setFields, ' +
      'and re-enters',
    async () => {
      const f = await startFixture('mirror-leave');
      fx = f;
      const hubspot = f.hubspot!;
      await createProperties(hubspot);
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      const config = f.config(hubspotConfig(searchYaml('')));
      const run = (runId: string, extra: object = {}) => syncSearch(f.deps(config), { search: 'icp', runId, ...extra });

      expect(await run('r1')).toMatchObject({
        status: 'completed',
        entered: ids.length,
        left: 0,
        leaveActions: 0,
        leaversPending: 0,
      });
      const leaver = ids[0]!;
      f.si.setCompanyHeadcount(leaver, OUT);

      expect(await run('r2')).toMatchObject({ status: 'completed', entered: 0, left: 0, leaveActions: 0 });
      // A capped run (maxRecords) and an aborted one are not complete: neither counts as the second absence.
      const capped = f.config(hubspotConfig(searchYaml('    maxRecords: 20')));
      const limited = await syncSearch(f.deps(capped), { search: 'icp', runId: 'r-capped' });
      expect(limited).toMatchObject({ status: 'completed', limitedBy: 'max_records' });
      expect(limited.left).toBeUndefined();
      const stopped = await run('r-aborted', { signal: AbortSignal.abort() });
      expect(stopped.status).not.toBe('completed');
      expect(stopped.left).toBeUndefined();
      expect(companyProps(hubspot, leaver)?.si_in_search).toBe('true');

      // A dry run forecasts exactly what the next run does, and changes nothing (membership, CRM).
      expect(await run('r-dry', { dryRun: true })).toMatchObject({
        status: 'completed',
        dryRun: true,
        entered: 0,
        left: 1,
        leaveActions: 1,
        leaversPending: 0,
      });
      expect(companyProps(hubspot, leaver)?.si_in_search).toBe('true');
      const third = await run('r3');
      expect(third).toMatchObject({ status: 'completed', entered: 0, left: 1, leaveActions: 1, leaversPending: 0 });
      const props = companyProps(hubspot, leaver);
      expect(props?.si_in_search).toBe('false');
      expect(Date.parse(String(props?.si_left_at))).toBeGreaterThan(Date.now() - 600_000);
      // the others keep their value
      expect(companyProps(hubspot, ids[1]!)?.si_in_search).toBe('true');

      // It re-enters: counted entered, and its normal write sets the mapped constant back.
      f.si.setCompanyHeadcount(leaver, 50);
      expect(await run('r4')).toMatchObject({ status: 'completed', entered: 1, left: 0, leaveActions: 0 });
      expect(companyProps(hubspot, leaver)?.si_in_search).toBe('true');
    },
    120_000,
  );

  it(
    'a run whose matches fell by 50% or to 0 acts on nobody and warns leave_guard; leavers --apply then acts and ' +
      'accepts the drop',
    async () => {
      const f = await startFixture('mirror-guard');
      fx = f;
      const hubspot = f.hubspot!;
      await createProperties(hubspot);
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      const config = f.config(hubspotConfig(searchYaml('    leave: {confirmRuns: 1}')));
      const run = (runId: string) => syncSearch(f.deps(config), { search: 'icp', runId });
      expect(await run('g1')).toMatchObject({ status: 'completed', entered: ids.length });

      const half = ids.slice(0, Math.floor(ids.length / 2));
      for (const id of half) f.si.setCompanyHeadcount(id, OUT);
      const dry = await syncSearch(f.deps(config), { search: 'icp', runId: 'g-dry', dryRun: true });
      expect(dry).toMatchObject({
        status: 'completed',
        left: half.length,
        leaveActions: 0,
        leaversPending: half.length,
      });
      expect(dry.warnings?.groups?.some((g) => g.code === 'leave_guard')).toBe(true);
      const guarded = await run('g2');
      expect(guarded).toMatchObject({
        status: 'completed',
        left: half.length,
        leaveActions: 0,
        leaversPending: half.length,
      });
      expect(guarded.warnings?.first.some((line) => line.startsWith('leave guard'))).toBe(true);
      expect(guarded.warnings?.groups?.some((g) => g.code === 'leave_guard')).toBe(true);
      expect(half.every((id) => companyProps(hubspot, id)?.si_in_search === 'true')).toBe(true);
      // A second guarded run in a row holds them still: a guarded run is no new baseline for the guard.
      const again = await run('g2b');
      expect(again).toMatchObject({ status: 'completed', leaveActions: 0, leaversPending: half.length });
      expect(again.warnings?.groups?.some((g) => g.code === 'leave_guard')).toBe(true);
      expect(half.every((id) => companyProps(hubspot, id)?.si_in_search === 'true')).toBe(true);

      // `leavers --apply`: every pending leaver gets its fields, and the drop becomes the guard's baseline.
      const listed = await reviewLeavers(f.deps(config), 'icp', false);
      expect(listed.pending).toEqual([...half].sort());
      expect(listed.applied).toBeUndefined();
      expect((await reviewLeavers(f.deps(config), 'icp', true)).applied).toEqual({ acted: half.length, pending: 0 });
      expect(half.every((id) => companyProps(hubspot, id)?.si_in_search === 'false')).toBe(true);
      const accepted = await run('g3');
      expect(accepted).toMatchObject({ status: 'completed', entered: 0, left: 0, leaveActions: 0, leaversPending: 0 });
      expect(accepted.warnings).toBeUndefined();

      // Everything out: the guard holds too (matches fell to 0).
      const rest = ids.slice(half.length);
      for (const id of rest) f.si.setCompanyHeadcount(id, OUT);
      const none = await run('g4');
      expect(none).toMatchObject({
        status: 'completed',
        left: rest.length,
        leaveActions: 0,
        leaversPending: rest.length,
      });
      expect(none.warnings?.groups?.some((g) => g.code === 'leave_guard')).toBe(true);
      expect(rest.every((id) => companyProps(hubspot, id)?.si_in_search === 'true')).toBe(true);
    },
    120_000,
  );

  it('a resumed run settles the whole run matches, not only its last attempt', async () => {
    const f = await startFixture('mirror-resume');
    fx = f;
    await createProperties(f.hubspot!);
    const ids = await f.oracleIds('companies', COMPANY_FILTER);
    // Small pages walked one at a time: the stop after the first committed batch lands while most pages are unfetched.
    const config = f.config(
      hubspotConfig(searchYaml('    leave: {confirmRuns: 1}'), '  pageSize: 10\n  parallelism: 1'),
    );
    expect(await syncSearch(f.deps(config), { search: 'icp', runId: 'p1' })).toMatchObject({
      status: 'completed',
      entered: ids.length,
    });
    expect(ids.length).toBeGreaterThan(40);
    // The second run stops after its first committed batch, then resumes (same run id) and completes.
    const stop = new AbortController();
    const cut = await syncSearch(f.deps(config), {
      search: 'icp',
      runId: 'p2',
      signal: stop.signal,
      onProgress: () => stop.abort(),
    });
    expect(cut).toMatchObject({ status: 'failed', stopReason: 'aborted' });
    expect(cut.fetched).toBeLessThan(ids.length);
    const resumed = await syncSearch(f.deps(config), { search: 'icp', runId: 'p2' });
    expect(resumed).toMatchObject({ status: 'completed', entered: 0, left: 0, leaveActions: 0, leaversPending: 0 });
    expect(resumed.warnings).toBeUndefined();
  }, 120_000);

  it('leavers whose fields the CRM refuses stay pending and the run warns leave_refused', async () => {
    const f = await startFixture('mirror-refused');
    fx = f;
    const hubspot = f.hubspot!;
    await createProperties(hubspot);
    const ids = await f.oracleIds('companies', COMPANY_FILTER);
    const config = f.config(hubspotConfig(searchYaml('    leave: {confirmRuns: 1}')));
    expect(await syncSearch(f.deps(config), { search: 'icp', runId: 'x1' })).toMatchObject({
      status: 'completed',
      entered: ids.length,
    });
    f.si.setCompanyHeadcount(ids[0]!, OUT);
    // The portal refuses this record's write (a validation rule, say): the preflight cannot know that.
    hubspot.faults.reject.values.add(ids[0]!);
    const refused = await syncSearch(f.deps(config), { search: 'icp', runId: 'x2' });
    expect(refused).toMatchObject({ status: 'completed', left: 1, leaveActions: 0, leaversPending: 1 });
    expect(refused.warnings?.groups?.find((g) => g.code === 'leave_refused')?.example).toContain('INVALID_OPTION');
    expect((await reviewLeavers(f.deps(config), 'icp', false)).pending).toEqual([ids[0]]);
  }, 120_000);

  it('a record that re-enters resets its absence: left only after 2 complete runs absent in a row', async () => {
    const f = await startFixture('mirror-reset');
    fx = f;
    await createProperties(f.hubspot!);
    const ids = await f.oracleIds('companies', COMPANY_FILTER);
    const config = f.config(hubspotConfig(searchYaml('')));
    const run = (runId: string) => syncSearch(f.deps(config), { search: 'icp', runId });
    expect(await run('e1')).toMatchObject({ entered: ids.length });
    const id = ids[5]!;
    f.si.setCompanyHeadcount(id, OUT);
    expect(await run('e2')).toMatchObject({ entered: 0, left: 0 }); // absent once
    f.si.setCompanyHeadcount(id, 50);
    expect(await run('e3')).toMatchObject({ entered: 0, left: 0 }); // back: still a member, its absence starts over
    f.si.setCompanyHeadcount(id, OUT);
    expect(await run('e4')).toMatchObject({ entered: 0, left: 0, leaveActions: 0 }); // absent once again
    expect(await run('e5')).toMatchObject({ entered: 0, left: 1, leaveActions: 1 });
  }, 120_000);
});
