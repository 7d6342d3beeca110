/**
 * Pay once: a contacts search of ~10,000 persons run twice, with 2% new persons inserted by the emulator between
 * the runs. Reports credits of run 2 per new person (goal <= 1.05), tokens of run 2 per record, and the error of
 * the plan's forecast (credits and tokens, goal <= 1%). With `--memory`: the revealed-at store's size per million
 * persons, measured with MEMORY USAGE over 1,000,000 marked ids.
 * With `--dry-run` (issue 34; persons default 2,370): dry run -> real run -> re-run -> 10% new persons -> dry run ->
 * real run, each after a `plan`: credits and tokens the API charged per step (tokens per person), the error of the
 * plan's forecast and the dry runs' credit forecast from the reveal store. `--json=file` writes the rows.
 * Run: REDIS_URL=redis://127.0.0.1:6379/6 npx tsx bench/reveal-once.ts [persons=10000] [--seed=1] [--memory]
 *      REDIS_URL=redis://127.0.0.1:6379/6 npx tsx bench/reveal-once.ts --dry-run [persons=2370] [--json=file]
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { syncSearch } from '../jobs/sync-search.js';
import { openSource } from '../jobs/sync-search/open-source.js';
import { planRun, type RunPlan } from '../jobs/sync-search/plan-run.js';
import { resolveSearch } from '../jobs/sync-search/resolve-search.js';
import { parseConfig } from '../src/config/index.js';
import { startHubSpotEmulator } from '../src/emulators/hubspot/index.js';
import { startSalesIntelEmulator } from '../src/emulators/sales-intel/index.js';
import { silentLogger } from '../src/shared/logger.js';
import { createRedis, deleteKeysUnder } from '../src/shared/redis.js';
import { RevealStore } from '../src/source/reveal-store.js';

const dryRuns = process.argv.includes('--dry-run');
const persons = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? (dryRuns ? 2_370 : 10_000));
const memory = process.argv.includes('--memory');
const jsonOut = process.argv.find((a) => a.startsWith('--json='))?.slice('--json='.length);
const seed = Number(process.argv.find((a) => a.startsWith('--seed='))?.slice('--seed='.length) ?? 1);
const account = { clientId: 'bench-client', clientSecret: 'bench-secret', accountId: 'bench' };
// 1 in 20 person slots hidden at random (1 in 8 with --dry-run): room for the persons inserted between the runs
const si = await startSalesIntelEmulator({
  port: 0,
  seed,
  companies: dryRuns ? 600 : 2_000,
  persons,
  personReserveEvery: dryRuns ? 8 : 20,
  accounts: [account],
});
const hubspot = await startHubSpotEmulator({ port: 0, accessTokens: ['bench-token'], limits: { perTenSeconds: 190 } });
const redis = createRedis(process.env.REDIS_URL);
const prefix = `pay-bench:${randomUUID().slice(0, 8)}`;
const FILTER = { company: { headcount: { gte: 1 } } };
const config = parseConfig(
  `
source:
  baseUrl: ${si.url}
  auth: {tokenUrl: "${si.tokenUrl}", clientId: ${account.clientId}, clientSecret: "\${SI_CLIENT_SECRET}"}
  credits: {maxPerRun: 1000000, maxPerDay: 10000000}
destinations:
  crm: {type: hubspot, accessToken: "\${HUBSPOT_TOKEN}", baseUrl: "${hubspot.url}", requestsPer10s: 190}
reveal:
  contactsAllowedSegments: [key-accounts]
searches:
  - name: people
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    view: [demographics, contacts]
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, lastname: lastName, phone: contacts.phone, mobilephone: contacts.mobile}
`,
  'bench.yaml',
  { SI_CLIENT_SECRET: account.clientSecret, HUBSPOT_TOKEN: 'bench-token' },
).config;
const deps = { config, redis, prefix, logger: silentLogger };
const pct = (a: number, b: number): string => `${((Math.abs(a - b) / Math.max(1, b)) * 100).toFixed(2)}%`;

/** Run 1, 2% new persons, run 2: what run 2 pays for them, and the error of its plan's forecast. */
async function payOnce(): Promise<void> {
  let plan1: RunPlan | undefined;
  const run1 = await syncSearch(deps, { search: 'people', runId: 'bench-1', onPlan: (p) => (plan1 = p) });
  const s1 = si.stats('bench');
  console.log(
    `run 1 (first run): ${run1.status}, ${run1.counted} persons, credits ${s1.creditsCharged}, ` +
      `tokens ${s1.tokensCharged} (${(s1.tokensCharged / run1.counted).toFixed(3)}/record); forecast ` +
      `credits ${plan1?.forecastCredits} tokens ${plan1?.forecastTokens}`,
  );

  const inserted = si.insertPersons(Math.round(run1.counted * 0.02), FILTER);
  si.resetStats();
  let plan2: RunPlan | undefined;
  const run2 = await syncSearch(deps, { search: 'people', runId: 'bench-2', onPlan: (p) => (plan2 = p) });
  const s2 = si.stats('bench');
  const records = run2.created + run2.updated + run2.unchanged;
  console.log(
    `run 2: ${run2.status}, ${inserted.length} new persons inserted ` +
      `(${((inserted.length / run2.counted) * 100).toFixed(2)}%), ${records} records landed`,
  );
  console.log(
    `  credits of run 2 / new persons = ${s2.creditsCharged} / ${inserted.length} ` +
      `= ${(s2.creditsCharged / inserted.length).toFixed(3)} (goal <= 1.05)`,
  );
  console.log(
    `  tokens of run 2 / records = ${s2.tokensCharged} / ${records} ` +
      `= ${(s2.tokensCharged / records).toFixed(3)} (searches: ${s2.requests['persons.search']})`,
  );
  console.log(
    `  forecast (${plan2?.forecastMethod}): credits ${plan2?.forecastCredits} vs ${s2.creditsCharged} spent, ` +
      `error ${pct(plan2?.forecastCredits ?? 0, s2.creditsCharged)}; tokens ${plan2?.forecastTokens} ` +
      `vs ${s2.tokensCharged}, error ${pct(plan2?.forecastTokens ?? 0, s2.tokensCharged)} (goal <= 1%)`,
  );
  console.log(
    `  summary: personsRevealed ${run2.personsRevealed}, revealSkipped ${run2.revealSkipped}, ` +
      `tokensSpentPerRecord ${run2.tokensSpentPerRecord}, created ${run2.created}, updated ${run2.updated}, ` +
      `unchanged ${run2.unchanged}`,
  );

  if (memory) {
    const base = `${prefix}:mem`;
    const store = new RevealStore(redis, base, 180);
    const N = 1_000_000;
    for (let i = 0; i < N; i += 10_000)
      await store.mark(Array.from({ length: 10_000 }, (_, k) => `p_${(i + k).toString(36).padStart(6, '0')}`));
    let bytes = 0;
    let keys = 0;
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${base}:reveal:*`, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) {
        bytes += Number(await redis.memory('USAGE', key));
        keys += 1;
      }
    } while (cursor !== '0');
    const encoding = await redis.object('ENCODING', `${base}:reveal:0000`);
    console.log(
      `revealed-at store: ${N} persons in ${keys} hashes (${encoding}) = ${(bytes / 1e6).toFixed(1)} MB by ` +
        `MEMORY USAGE, ${(bytes / N).toFixed(1)} bytes/person`,
    );
  }
}

const err = (forecast: number, actual: number): number =>
  Math.round((Math.abs(forecast - actual) / Math.max(1, actual)) * 10_000) / 100;

/** `plan` as the command makes it (its own source client and run id), then the run: one row of the dry-run story. */
async function step(name: string, dryRun = false): Promise<Record<string, unknown>> {
  const source = openSource(config, redis, prefix, silentLogger);
  const plan = await planRun(source, config, resolveSearch(config, 'people'), { runId: randomUUID() }).finally(() =>
    source.close(),
  );
  si.resetStats();
  const s = await syncSearch(deps, { search: 'people', runId: `${name}-${randomUUID().slice(0, 6)}`, dryRun });
  const { creditsCharged: credits, tokensCharged: tokens } = si.stats('bench');
  const row = {
    step: name,
    status: s.status,
    persons: s.counted,
    credits,
    tokens,
    tokensPerPerson: Math.round((tokens / Math.max(1, s.counted)) * 1000) / 1000,
    revealed: s.personsRevealed ?? 0,
    plan: { credits: plan.forecastCredits, tokens: plan.forecastTokens, method: plan.forecastMethod },
    ...(dryRun
      ? { revealForecast: s.revealForecast }
      : { creditError: err(plan.forecastCredits, credits), tokenError: err(plan.forecastTokens, tokens) }),
  };
  console.log(JSON.stringify(row));
  return row;
}

/** Dry run -> real run -> re-run -> 10% new persons -> dry run -> real run. */
async function dryRunStory(): Promise<void> {
  const rows = [await step('dry', true), await step('real'), await step('rerun')];
  const inserted = si.insertPersons(Math.round((rows[0]?.persons as number) * 0.1), FILTER).length;
  console.log(`inserted ${inserted} persons`);
  rows.push(await step('dry-after-new', true), await step('after-new'));
  if (jsonOut) await writeFile(jsonOut, `${JSON.stringify({ persons, seed, inserted, rows }, null, 2)}\n`);
}

try {
  await (dryRuns ? dryRunStory() : payOnce());
} finally {
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
  await Promise.all([si.close(), hubspot.close()]);
}
