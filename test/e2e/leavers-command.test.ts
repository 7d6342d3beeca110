/**
 * `prospect-sync leavers <search> [--apply] [--json]` and the mirror lines of `runs`, as a user runs them: a child
 * process, a YAML file, the emulators (real HubSpot client), real Redis.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { syncSearch } from '../../jobs/sync-search.js';
import { cli } from '../queue/cli-process.js';
import { COMPANY_FILTER, HUBSPOT_TOKEN, hubspotConfig, startFixture, type Fixture } from '../jobs/sync-fixture.js';

let fx: Fixture | undefined;
let dir: string | undefined;
afterEach(async () => {
  await fx?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  fx = dir = undefined;
});

const SEARCH = `
  - name: icp
    segment: icp
    entity: companies
    filter:
      company:
        headcount: {gte: 1, lte: 1000000}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields:
      name: name
    onLeave:
      setFields: {si_in_search: false}
    leave: {confirmRuns: 1}
`;

async function command(f: Fixture, yaml: string, args: string[]): Promise<{ code: number | null; out: string }> {
  dir ??= await mkdtemp(join(tmpdir(), 'ps-leavers-'));
  const file = join(dir, 'config.yaml');
  await writeFile(file, yaml);
  const c = cli([...args, '--config', file], { ...f.env, QUEUE_PREFIX: f.prefix, LOG_LEVEL: 'silent' });
  const code = await c.exited;
  return { code, out: c.out() };
}

const lastJson = (out: string): Record<string, unknown> => JSON.parse(out.trim().split('\n').at(-1) ?? 'null') as Record<string, unknown>;

describe('leavers command (child process)', () => {
  it('lists the leavers the guard held back, --apply acts on them; runs shows the mirror figures; an unknown search exits 2', async () => {
    const f = await startFixture('cli-leavers');
    fx = f;
    const res = await fetch(`${f.hubspot!.url}/crm/v3/properties/companies`, {
      method: 'POST', headers: { authorization: `Bearer ${HUBSPOT_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'si_in_search', label: 'In search', type: 'bool', fieldType: 'booleancheckbox', groupName: 'companyinformation' }),
    });
    expect(res.status).toBe(201);
    const yaml = hubspotConfig(SEARCH);
    const config = f.config(yaml);
    const ids = await f.oracleIds('companies', COMPANY_FILTER);
    await syncSearch(f.deps(config), { search: 'icp', runId: 'l1' });
    const half = ids.slice(0, Math.floor(ids.length / 2));
    for (const id of half) f.si.setCompanyHeadcount(id, 2_000_000);
    expect(await syncSearch(f.deps(config), { search: 'icp', runId: 'l2' })).toMatchObject({ leaveActions: 0, leaversPending: half.length });

    const runs = await command(f, yaml, ['runs', 'icp']);
    expect(runs.code).toBe(0);
    expect(runs.out).toContain(`entered 0  left ${half.length}  leave actions 0  leavers pending ${half.length}`);

    const listed = await command(f, yaml, ['leavers', 'icp', '--json']);
    expect(listed.code).toBe(0);
    expect(lastJson(listed.out)).toEqual({ search: 'icp', onLeave: { setFields: { si_in_search: false } }, pending: [...half].sort() });
    const text = await command(f, yaml, ['leavers', 'icp']);
    expect(text.out).toContain(`icp: ${half.length} leaver(s) pending (onLeave: setFields si_in_search)`);

    const applied = await command(f, yaml, ['leavers', 'icp', '--apply', '--json']);
    expect(applied.code).toBe(0);
    expect(lastJson(applied.out).applied).toEqual({ acted: half.length, pending: 0 });
    const table = f.hubspot!.state.tables.get('companies');
    const leftRecords = [...(table?.objects.values() ?? [])].filter((o) => o.properties.si_in_search === 'false');
    expect(leftRecords.map((o) => o.properties.prospect_sync_id).sort()).toEqual([...half].sort());
    expect(lastJson((await command(f, yaml, ['leavers', 'icp', '--json'])).out).pending).toEqual([]);

    expect((await command(f, yaml, ['leavers', 'nope'])).code).toBe(2);
  }, 120_000);
});
