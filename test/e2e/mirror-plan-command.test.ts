/**
 * The mirror's figures on the command line, as a user runs them (child process, YAML, emulators, real HubSpot
 * client, real Redis): `plan` shows the members, pending leavers and members not in the list yet after a guarded
 * run without walking, and `runs` (text and --json) the run's mirror and list figures.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { fixtureCli } from './fixture-cli.js';
import { COMPANY_FILTER, companySearch, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';

let fx: Fixture | undefined;
const cli = fixtureCli('mirror-plan');
afterEach(async () => {
  await fx?.close();
  await cli.cleanup();
  fx = undefined;
});

const lastJson = (out: string): Record<string, unknown> =>
  JSON.parse(out.trim().split('\n').at(-1) ?? 'null') as Record<string, unknown>;

describe('the mirror on the command line (child process)', () => {
  it(
    'plan shows members, pending leavers and members not in the list after a guarded run; runs shows the list ' +
      'figures',
    async () => {
      const f = await startFixture('cli-mirror-plan');
      fx = f;
      const ids = await f.oracleIds('companies', COMPANY_FILTER);
      // The membership is kept before the search has a list; the list comes with the next config.
      const config = f.config(hubspotConfig(companySearch('icp', '    leave: {confirmRuns: 1}')));
      const first = await syncSearch(f.deps(config), { search: 'icp', runId: 'p1' });
      const half = ids.slice(0, Math.floor(ids.length / 2));
      for (const id of half) f.si.setCompanyHeadcount(id, 2_000_000);
      const guarded = await syncSearch(f.deps(config), { search: 'icp', runId: 'p2' });
      expect(guarded).toMatchObject({ left: half.length, leaveActions: 0, leaversPending: half.length });
      const members = ids.length - half.length;

      const listed = hubspotConfig(
        companySearch('icp', '    list: {name: ICP}\n    onLeave: removeFromList\n    leave: {confirmRuns: 1}'),
      );
      const tokens = f.si.stats('worker').tokensCharged;
      const plan = await cli.run(f, listed, ['plan', 'icp', '--json']);
      expect(plan.code).toBe(0);
      expect(lastJson(plan.out).mirror).toEqual({
        instance: expect.stringMatching(/^hubspot:/) as unknown,
        members,
        leaversPending: half.length,
        pendingBecause: 'leave_guard',
        list: { name: 'ICP', unlisted: members },
        onLeave: 'removeFromList',
        lastComplete: {
          runId: 'p2',
          finishedAt: guarded.finishedAt,
          entered: 0,
          left: half.length,
          leaveActions: 0,
          listAdded: null,
          listRemoved: null,
        },
      });
      const text = await cli.run(f, listed, ['plan', 'icp']);
      expect(text.out).toMatch(
        new RegExp(
          `mirror\\s+${members} members in hubspot:\\S+, ${half.length} leavers pending \\(held back by the ` +
            `leave guard`,
        ),
      );
      expect(text.out).toMatch(new RegExp(`list\\s+ICP: ${members} members not in it yet`));
      expect(text.out).toMatch(
        new RegExp(`churn\\s+last complete run ${guarded.finishedAt}: entered 0, left ${half.length}, leave actions 0`),
      );
      expect(text.out).toContain('`prospect-sync run icp --dry-run`');
      // Plan walks nothing and writes nothing: no search token, no list.
      expect(f.si.stats('worker').tokensCharged).toBe(tokens);
      expect(f.hubspot!.state.lists.byNameOf('ICP', '0-2')).toBeUndefined();
      expect(first.entered).toBe(ids.length);

      // The next run (still under the guard) adds every member to the new list.
      const third = await syncSearch(f.deps(f.config(listed)), { search: 'icp', runId: 'p3' });
      expect(third).toMatchObject({ listAdded: members, listRemoved: 0, leaversPending: half.length });
      const runs = await cli.run(f, listed, ['runs', 'icp', '--json']);
      expect(runs.code).toBe(0);
      const [latest] = (lastJson(runs.out) as { runs: RunSummary[] }).runs;
      expect(latest).toMatchObject({
        runId: 'p3',
        entered: 0,
        left: 0,
        leaveActions: 0,
        leaversPending: half.length,
        listAdded: members,
        listRemoved: 0,
      });

      // A CRM that does not answer leaves the mirror unknown; the plan itself still answers, and the command fails.
      const down = await cli.run(f, listed, ['plan', 'icp', '--json'], { HUBSPOT_BASE_URL: 'http://127.0.0.1:9' });
      expect(down.code).toBe(1);
      expect(lastJson(down.out)).toMatchObject({
        counted: members,
        mirror: null,
        mirrorError: { code: 'crm_unavailable' },
      });
    },
    120_000,
  );
});
