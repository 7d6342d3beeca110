/**
 * A dry run costs no credit (issue 34), through the CLI as a user runs it: `run --dry-run` of a contacts search
 * walks without contacts and says what it will spend before its first token, `--sample N` takes a quick look, the
 * real run after it pays every person once, and `account` shows one charge per person.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/runs/run-summary.js';
import { hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';
import { fixtureCli } from './fixture-cli.js';

const FILTER = { company: { headcount: { gte: 1 } } };
const SEARCH = `
  - name: people
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    view: [demographics, contacts]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, phone: contacts.phone}
`;

const cli = fixtureCli('dry-run');
let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  await cli.cleanup();
  fx = undefined;
});

describe('run --dry-run of a contacts search', () => {
  it('pays no credit, says its spend first, samples; the real run pays each person once', async () => {
    const f = (fx = await startFixture('dry-run-cli', { salesIntel: { persons: 300 } }));
    const yaml = hubspotConfig(SEARCH, '  credits: {maxPerRun: 100000, maxPerDay: 1000000}');
    const persons = (await f.oracleIds('persons', FILTER)).length;

    const refused = await cli.run(f, yaml, ['run', 'people', '--sample', '20']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('--sample needs --dry-run');

    const sample = await cli.run(f, yaml, ['run', 'people', '--dry-run', '--sample', '20', '--json']);
    expect(sample.code).toBe(0);
    expect(sample.err).toContain('dry run: walks up to 20 records without contacts: 20 tokens, 0 credits;');
    expect(sample.err).toContain(`a real run now: ${persons} credits, ${persons} tokens`);
    expect(sample.last()).toMatchObject({
      status: 'completed',
      limitedBy: 'sample',
      dryRun: true,
      unique: 20,
      creditsSpent: 0,
      revealForecast: { credits: 20, revealSkipped: 0, from: 'sample' },
    });
    expect(f.si.stats('worker')).toMatchObject({ tokensCharged: 20, creditsCharged: 0 });

    const dry = await cli.run(f, yaml, ['run', 'people', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toContain(`a real run would reveal ${persons} (${persons} credits)`);
    expect(dry.out).toContain('[from the reveal store]');
    expect(f.si.stats('worker')).toMatchObject({ tokensCharged: 20 + persons, creditsCharged: 0 });

    const real = await cli.run(f, yaml, ['run', 'people', '--json']);
    expect(real.code).toBe(0);
    const summary = real.last() as RunSummary;
    expect(summary).toMatchObject({ status: 'completed', creditsSpent: persons, personsRevealed: persons });
    expect(summary.revealForecast).toBeUndefined();
    expect(f.si.stats('worker').creditsCharged).toBe(persons);
    // tokens of the real run: one per person (a first run, the dry runs before it notwithstanding)
    expect(f.si.stats('worker').tokensCharged).toBe(20 + 2 * persons);

    const account = await cli.run(f, yaml, ['account', '--json']);
    expect(account.code).toBe(0);
    expect(account.last()).toMatchObject({ credits: { today: persons, total: persons } });
    // five CLI processes: room for a loaded machine
  }, 300_000);
});
