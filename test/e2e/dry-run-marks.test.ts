/**
 * Words that do not mislead: a dry run is marked in `runs` and kept out of the search page's charts; `run` is `cli`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { listRuns } from '../../src/runs/run-history.js';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { runHistoryPage } from '../../src/server/runs-pages.js';
import { COMPANY_SEARCH, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';
import { fixtureCli } from './fixture-cli.js';

const trends = (html: string): string => html.slice(html.indexOf('<h2>Trends</h2>'), html.indexOf('<h2>History</h2>'));

describe('dry runs and the cli trigger', () => {
  const cli = fixtureCli('dry-marks');
  let fx: Fixture | undefined;
  afterAll(async () => {
    await fx?.close();
    await cli.cleanup();
  });

  it('runs prints a dry run as one, the trigger of `run` is cli, and the charts leave dry runs out', async () => {
    fx = await startFixture('dry-marks');
    const yaml = hubspotConfig(COMPANY_SEARCH);
    const dry = await cli.run(fx, yaml, ['run', 'all-companies', '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(dry.last()).toMatchObject({ dryRun: true, trigger: 'cli' });
    expect((await cli.run(fx, yaml, ['run', 'all-companies'])).code).toBe(0);
    const runs = await cli.run(fx, yaml, ['runs', 'all-companies']);
    const [real, dryLine] = runs.out.trim().split('\n');
    expect(dryLine).toMatch(/^\S+ +completed +DRY RUN \(nothing written\) +fetched \d+ +created \d+/);
    expect(real).not.toContain('DRY RUN');

    const history = await listRuns(fx.redis, 'all-companies', { prefix: fx.prefix });
    expect(history.map((r: RunSummary) => [r.dryRun, r.trigger])).toEqual([
      [false, 'cli'],
      [true, 'cli'],
    ]);
    const page = runHistoryPage('all-companies', history, undefined);
    expect(trends(page)).toBe(trends(runHistoryPage('all-companies', [history[0]!], undefined)));
    expect(page).toContain('(dry run)');
    expect(page).toMatch(/<td[^>]*>cli<\/td>/);
  }, 120_000);
});
