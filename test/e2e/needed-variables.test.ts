/**
 * Only what a command uses is required: a one-off `run`, `plan` or `validate` never serves the dashboard, so the
 * dashboard's password may be unset; the roles that serve it refuse to start without it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { COMPANY_SEARCH, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';
import { fixtureCli } from './fixture-cli.js';

const YAML = `${hubspotConfig(COMPANY_SEARCH)}server:
  port: 0
  auth: {username: ops, password: "\${DASHBOARD_PASSWORD}"}
`;
const UNSET = /environment variable DASHBOARD_PASSWORD is not set/;

describe('DASHBOARD_PASSWORD unset', () => {
  const cli = fixtureCli('needed-vars');
  let fx: Fixture | undefined;
  afterAll(async () => {
    await fx?.close();
    await cli.cleanup();
  });

  it('run, plan and validate work; validate warns that only the dashboard needs it', async () => {
    fx = await startFixture('needed-vars');
    const plan = await cli.run(fx, YAML, ['plan', 'all-companies', '--json']);
    expect([plan.code, plan.err]).toEqual([0, '']);
    const run = await cli.run(fx, YAML, ['run', 'all-companies', '--json']);
    expect([run.code, run.err]).toEqual([0, '']);
    expect(run.last()).toMatchObject({ status: 'completed' });
    const validate = await cli.run(fx, YAML, ['validate']);
    expect(validate.code).toBe(0);
    expect(validate.out).toMatch(/valid/);
    expect(validate.err).toMatch(
      new RegExp(
        /warning: .*:\d+:\d+ server\.auth\.password: environment variable DASHBOARD_PASSWORD is not set /.source +
          /.*only the dashboard \(`start`, `dashboard`\) needs it/.source,
      ),
    );
  }, 120_000);

  it('the dashboard role refuses to start without it: exit 2 naming the variable', async () => {
    fx ??= await startFixture('needed-vars');
    const dashboard = await cli.run(fx, YAML, ['dashboard']);
    expect(dashboard.code).toBe(2);
    expect(dashboard.err).toMatch(UNSET);
    const started = await cli.run(fx, YAML, ['start']);
    expect(started.code).toBe(2);
    expect(started.err).toMatch(UNSET);
  }, 60_000);
});
