/** `plan` with a CRM it cannot read prints what it knows and exits 1: a script running it must not go on. */
import { afterAll, describe, expect, it } from 'vitest';
import { COMPANY_SEARCH, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';
import { fixtureCli } from './fixture-cli.js';

describe('plan against a CRM that does not answer', () => {
  const cli = fixtureCli('plan-crm-down');
  let fx: Fixture | undefined;
  afterAll(async () => {
    await fx?.close();
    await cli.cleanup();
  });

  it('exits 1 with the plan and the reason', async () => {
    fx = await startFixture('plan-crm-down', { hubspot: false });
    const yaml = hubspotConfig(COMPANY_SEARCH);
    const text = await cli.run(fx, yaml, ['plan', 'all-companies']);
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/mirror +unknown: the CRM did not say who it is \(crm_unavailable/);
    const json = await cli.run(fx, yaml, ['plan', 'all-companies', '--json']);
    expect(json.code).toBe(1);
    expect(json.last()).toMatchObject({ mirror: null, mirrorError: { code: 'crm_unavailable' } });
  }, 120_000);
});
