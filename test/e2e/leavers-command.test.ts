/**
 * `prospect-sync leavers <search> [--apply] [--json]` and the mirror lines of `runs`, as a user runs them: a child
 * process, a YAML file, the emulators (real HubSpot client), real Redis.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { fixtureCli } from './fixture-cli.js';
import {
  COMPANY_FILTER,
  companySearch,
  HUBSPOT_TOKEN,
  hubspotConfig,
  startFixture,
  type Fixture,
} from '../jobs/sync-fixture.js';

let fx: Fixture | undefined;
const cli = fixtureCli('leavers');
afterEach(async () => {
  await fx?.close();
  await cli.cleanup();
  fx = undefined;
});

const SEARCH = companySearch(
  'icp',
  `    onLeave:
      setFields: {si_in_search: false}
    leave: {confirmRuns: 1}
`,
);

const lastJson = (out: string): Record<string, unknown> =>
  JSON.parse(out.trim().split('\n').at(-1) ?? 'null') as Record<string, unknown>;

describe('leavers command (child process)', () => {
  it(
    'lists the leavers the guard held back, --apply acts on them; runs shows the mirror figures; an unknown ' +
      'search exits 2',
    async () => {
      const f = await startFixture('cli-leavers');
      fx = f;
      const res = await fetch(`${f.hubspot!.url}/crm/v3/properties/companies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${HUBSPOT_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'si_in_search',
          label: 'In search',
          type: 'bool',
          fieldType: 'booleancheckbox',
          groupName: 'companyinformation',
        }),
      });
      expect(res.status).toBe(201);
      const yaml = hubspotConfig(SEARCH);
      const config = f.config(yaml);
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      await syncSearch(f.deps(config), { search: 'icp', runId: 'l1' });
      const half = ids.slice(0, Math.floor(ids.length / 2));
      for (const id of half) f.si.setCompanyHeadcount(id, 2_000_000);
      expect(await syncSearch(f.deps(config), { search: 'icp', runId: 'l2' })).toMatchObject({
        leaveActions: 0,
        leaversPending: half.length,
      });

      const runs = await cli.run(f, yaml, ['runs', 'icp']);
      expect(runs.code).toBe(0);
      expect(runs.out).toContain(`entered 0  left ${half.length}  leave actions 0  leavers pending ${half.length}`);

      const listed = await cli.run(f, yaml, ['leavers', 'icp', '--json']);
      expect(listed.code).toBe(0);
      expect(lastJson(listed.out)).toEqual({
        search: 'icp',
        onLeave: { setFields: { si_in_search: false } },
        pending: [...half].sort(),
      });
      const text = await cli.run(f, yaml, ['leavers', 'icp']);
      expect(text.out).toContain(`icp: ${half.length} leaver(s) pending (onLeave: setFields si_in_search)`);

      const applied = await cli.run(f, yaml, ['leavers', 'icp', '--apply', '--json']);
      expect(applied.code).toBe(0);
      expect(lastJson(applied.out).applied).toEqual({ acted: half.length, pending: 0 });
      const table = f.hubspot!.state.tables.get('companies');
      const leftRecords = [...(table?.objects.values() ?? [])].filter((o) => o.properties.si_in_search === 'false');
      expect(leftRecords.map((o) => o.properties.prospect_sync_id).sort()).toEqual([...half].sort());
      expect(lastJson((await cli.run(f, yaml, ['leavers', 'icp', '--json'])).out).pending).toEqual([]);

      expect((await cli.run(f, yaml, ['leavers', 'nope'])).code).toBe(2);
    },
    120_000,
  );
});
