/**
 * A compressed token period on the emulators, in this process. The process's clock is simulated
 * (bench/lib/simulated-clock.ts): it jumps to each event's time, so the worker's schedules, pacing, forecast and ages
 * see the period pass. The Sales-Intelligence emulator keeps its token period on the real clock with the reset set
 * at the simulated period's end (the worker stores the reset as Redis time + the seconds the API reports, and Redis
 * time is real: so the stored reset is that end exactly). Each simulated day starts with a step of index churn
 * (POST /__emulator/company-churn). The saved searches run in schedule order through the real pace gate and the real
 * syncSearch into the HubSpot emulator; a run the gate delays is skipped (its retry is its next scheduled run). After
 * every run the CRM is compared with the emulator's truth: changed headcounts not yet landed, entered companies not
 * yet there.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { syncSearch } from '../../jobs/sync-search.js';
import { openSource } from '../../jobs/sync-search/index.js';
import { tokenPaceDecision } from '../../jobs/sync-search/token-pace-gate.js';
import { allotmentForecastOf } from '../../src/cli/commands/plan-all.js';
import { parseConfig, type AppConfig, type SavedSearch } from '../../src/config/index.js';
import { startHubSpotEmulator, type HubSpotEmulator } from '../../src/emulators/hubspot/index.js';
import type { ChurnedCompany } from '../../src/emulators/sales-intel/company-churn.js';
import { startSalesIntelEmulator, type SalesIntelEmulator } from '../../src/emulators/sales-intel/index.js';
import { scheduledRunTimes } from '../../src/runs/allotment-forecast.js';
import type { RefreshSummary, RunSummary } from '../../src/runs/run-summary.js';
import { silentLogger } from '../../src/shared/logger.js';
import { deleteKeysUnder } from '../../src/shared/redis.js';
import { RedisBudgetLedger } from '../../src/source/budget-ledger.js';
import { defaultAccountKey } from '../../src/source/index.js';
import { installSimulatedClock } from './simulated-clock.js';

const DAY = 86_400_000;
const ACCOUNT = { clientId: 'period-client', clientSecret: 'period-secret', accountId: 'period' };
const HUBSPOT_TOKEN = 'period-hubspot-token';

export interface PeriodSearch {
  name: string;
  filter: Record<string, unknown>;
  schedule: NonNullable<SavedSearch['schedule']>;
  priority: number;
}

/**
 * Five searches of different sizes (at 20,000 companies: ~300, ~1,300, ~3,500, ~3,500, ~10,000), schedules and
 * priorities.
 */
export const PERIOD_SEARCHES: PeriodSearch[] = [
  {
    name: 'hourly-signals',
    priority: 1,
    schedule: { every: '1h' },
    filter: {
      company: {
        industry: { include: ['software', 'internet'] },
        location: { country: { include: ['US', 'CA', 'GB', 'DE'] } },
      },
    },
  },
  {
    name: 'six-hourly-tech',
    priority: 3,
    schedule: { cron: '30 */6 * * *', timezone: 'UTC' },
    filter: { company: { industry: { include: ['software', 'it_services'] } } },
  },
  {
    name: 'daily-icp',
    priority: 10,
    schedule: { cron: '0 6 * * *', timezone: 'UTC' },
    filter: { company: { location: { country: { include: ['US', 'CA'] } } } },
  },
  {
    name: 'daily-dach-nordics',
    priority: 8,
    schedule: { cron: '0 18 * * *', timezone: 'UTC' },
    filter: { company: { location: { region: { include: ['dach', 'nordics'] } } } },
  },
  {
    name: 'weekly-europe',
    priority: 5,
    schedule: { cron: '0 3 * * 1', timezone: 'UTC' },
    filter: {
      company: {
        location: { region: { include: ['western_europe', 'southern_europe', 'eastern_europe', 'nordics', 'dach'] } },
      },
    },
  },
];

export interface PeriodOptions {
  redis: Redis;
  companies: number;
  days: number;
  /** Share of the companies that change, leave or enter (thirds) per simulated day. */
  churnShare: number;
  refresh: { mode: 'full' | 'changed'; maxAgeDays: number };
  /**
   * The allotment as a share of what full mode would spend over the period (every scheduled run walking every match).
   */
  allotmentShare: number;
  searches?: PeriodSearch[];
  seed?: number;
  /** Days (from the start) at which `plan --all`'s forecast is taken. */
  forecastDays?: number[];
  /** Hidden reserve of the emulator's companies (1 in n): new companies enter from it. */
  companyReserveEvery?: number;
  onRun?: (line: string) => void;
  /** Redis key prefix of the worker's state (a fresh one by default). */
  prefix?: string;
}

export interface RunRecord {
  search: string;
  day: number;
  at: string;
  status: RunSummary['status'] | 'paced';
  stopReason?: string;
  /** What the pace gate saw: this run's pace, the spendable balance, the higher priorities' need. */
  gate?: { run: number; spendable: number; needed: number };
  tokens: number;
  fetched: number;
  refresh?: unknown;
}

export interface SearchFigures {
  search: string;
  priority: number;
  matchesAtStart: number;
  runs: number;
  paced: number;
  tokens: number;
  /** Mean tokens of the completed runs after the first (the first walks everything in either mode). */
  tokensPerRunAfterFirst: number;
  /**
   * Changed mode: mean count requests and partitions walked per run after the first (from the summaries' refresh
   * block).
   */
  countsPerRun: number;
  walkedPerRun: number;
  keptPartitions: number;
  /** Oldest a changed headcount stayed wrong in the CRM (days), landed or still open at the end. */
  maxStaleDays: number;
  changedTracked: number;
  changedOpenAtEnd: number;
  entered: number;
  enteredSameDay: number;
  enteredAtFirstRun: number;
  enteredNeverSynced: number;
  /** Entered companies not synced the day they entered (up to 20 ids with their day). */
  enteredLate: string[];
}

export interface ForecastCheck {
  day: number;
  forecastTokens: number;
  actualTokens: number;
  error: number;
  exhaustsAt: string | null;
  basis: Record<string, string>;
}

export interface PeriodResult {
  companies: number;
  days: number;
  churnShare: number;
  refresh: PeriodOptions['refresh'];
  allotment: number;
  fullModeNeed: number;
  tokens: number;
  remainingAtEnd: number | null;
  served402: number;
  /**
   * Runs ended by the exhausted allotment (402 / tokens_exhausted): search, day, and the higher-priority need the gate
   * saw.
   */
  exhaustedRuns: { search: string; day: number; stopReason?: string; gateNeeded: number }[];
  /** Runs that ended other than completed (paced ones aside), by status and stop reason. */
  otherEndings: Record<string, number>;
  priorityViolations: { paced: string; at: string; lowerRan: string; lowerAt: string }[];
  searches: SearchFigures[];
  forecasts: ForecastCheck[];
  wallSeconds: number;
  runs: RunRecord[];
}

interface Pending {
  since: number;
  headcount: number;
  runs: number;
}

function yaml(si: SalesIntelEmulator, hs: HubSpotEmulator, o: PeriodOptions, searches: PeriodSearch[]): string {
  const lines = searches.map(
    (s) => `  - name: ${s.name}
    segment: bench
    entity: companies
    filter: ${JSON.stringify(s.filter)}
    schedule: ${JSON.stringify(s.schedule)}
    priority: ${s.priority}
    destination: crm
    object: companies
    matchOn: {field: ${matchField(s.name)}, from: id}
    fields: {name: name, domain: domain, numberofemployees: headcount}`,
  );
  return `
source:
  baseUrl: ${si.url}
  auth: {tokenUrl: "${si.tokenUrl}", clientId: ${ACCOUNT.clientId}, clientSecret: "\${SI_CLIENT_SECRET}"}
  fallbackLimits: {search: 500, count: 500, dictionary: 500, windowSeconds: 1}
  tokens: {pace: true}
  refresh: {mode: ${o.refresh.mode}, maxAgeDays: ${o.refresh.maxAgeDays}}
destinations:
  crm: {type: hubspot, accessToken: "\${HUBSPOT_TOKEN}", baseUrl: "${hs.url}"}
searches:
${lines.join('\n')}
`;
}

/** Each search writes its own CRM records (its own match field), so its staleness is its own. */
const matchField = (search: string): string => `ps_${search.replace(/-/g, '_')}`;

type SimEvent =
  | { at: number; kind: 'churn'; day: number }
  | { at: number; kind: 'run'; search: PeriodSearch }
  | { at: number; kind: 'forecast'; day: number };

export async function simulatePeriod(o: PeriodOptions): Promise<PeriodResult> {
  const searches = o.searches ?? PERIOD_SEARCHES;
  const seed = o.seed ?? 1;
  // The period starts on a Monday, 00:00 UTC, after today: the same weekdays on every run of the benchmark.
  const today = Math.floor(Date.now() / DAY) * DAY;
  const start = today + ((1 - new Date(today).getUTCDay() + 7) % 7 || 7) * DAY;
  const end = start + o.days * DAY;
  const clock = installSimulatedClock(start);
  const started = clock.real();
  const si = await startSalesIntelEmulator({
    port: 0,
    seed,
    companies: o.companies,
    persons: 0,
    companyReserveEvery: o.companyReserveEvery ?? 8,
    windowSeconds: 1,
    tokenClock: clock.real,
    accounts: [
      { ...ACCOUNT, limits: { search: 500, count: 500, dictionary: 500 }, tokenPeriodSeconds: o.days * 86_400 },
    ],
  });
  const hs = await startHubSpotEmulator({
    port: 0,
    accessTokens: [HUBSPOT_TOKEN],
    limits: { perTenSeconds: 100_000, daily: 1_000_000_000 },
  });
  const prefix = o.prefix ?? `bench-period-${randomUUID().slice(0, 8)}`;
  const { redis } = o;
  try {
    const control = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> => {
      const res = await fetch(`${si.url}/__emulator/${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      const answer = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const config: AppConfig = parseConfig(yaml(si, hs, o, searches), 'token-period.yaml', {
      SI_CLIENT_SECRET: ACCOUNT.clientSecret,
      HUBSPOT_TOKEN,
    }).config;
    const deps = { config, redis, prefix, logger: silentLogger };
    const source = openSource(config, redis, prefix, silentLogger);
    const ledger = new RedisBudgetLedger(
      redis,
      `${prefix}:source:${defaultAccountKey(config.source.baseUrl, config.source.auth.clientId)}`,
      0,
      {},
    );

    // The allotment sized from what full mode would spend; its reset at the period's end.
    const matchesAtStart = new Map<string, number>();
    let fullModeNeed = 0;
    for (const s of searches) {
      const n = await source.count('companies', s.filter as never);
      matchesAtStart.set(s.name, n);
      fullModeNeed += n * scheduledRunTimes(s.schedule, start - 1, end).length;
    }
    const allotment = Math.round(fullModeNeed * o.allotmentShare);
    await control('POST', 'token-balance', {
      accountId: ACCOUNT.accountId,
      remaining: allotment,
      resetInSeconds: (end - clock.real()) / 1000,
    });

    const events: SimEvent[] = [];
    for (const s of searches)
      for (const at of scheduledRunTimes(s.schedule, start - 1, end)) events.push({ at, kind: 'run', search: s });
    for (let day = 1; day < o.days; day++) events.push({ at: start + day * DAY, kind: 'churn', day });
    for (const day of o.forecastDays ?? []) events.push({ at: start + day * DAY, kind: 'forecast', day });
    const rank = (e: SimEvent): number => (e.kind === 'forecast' ? 0 : e.kind === 'churn' ? 1 : 2);
    events.sort(
      (a, b) =>
        a.at - b.at ||
        rank(a) - rank(b) ||
        (a.kind === 'run' && b.kind === 'run' ? b.search.priority - a.search.priority : 0),
    );

    const runs: RunRecord[] = [];
    const changed = new Map(searches.map((s) => [s.name, new Map<string, Pending>()]));
    const entering = new Map(searches.map((s) => [s.name, new Map<string, Pending>()]));
    const figures = new Map<string, SearchFigures>(
      searches.map((s) => [
        s.name,
        {
          search: s.name,
          priority: s.priority,
          matchesAtStart: matchesAtStart.get(s.name) ?? 0,
          runs: 0,
          paced: 0,
          tokens: 0,
          tokensPerRunAfterFirst: 0,
          countsPerRun: 0,
          walkedPerRun: 0,
          keptPartitions: 0,
          maxStaleDays: 0,
          changedTracked: 0,
          changedOpenAtEnd: 0,
          entered: 0,
          enteredSameDay: 0,
          enteredAtFirstRun: 0,
          enteredNeverSynced: 0,
          enteredLate: [],
        },
      ]),
    );
    const forecasts: (Omit<ForecastCheck, 'actualTokens' | 'error'> & { at: number })[] = [];
    const pacedAt: { search: PeriodSearch; at: number }[] = [];
    const dayOf = (t: number): number => Math.floor((t - start) / DAY);

    for (const e of events) {
      clock.advanceTo(e.at);
      if (e.kind === 'forecast') {
        const { forecast, searches: paces } = await allotmentForecastOf({ config, source, redis, prefix });
        forecasts.push({
          day: e.day,
          at: e.at,
          forecastTokens: forecast?.tokens ?? NaN,
          exhaustsAt: forecast?.exhaustsAt ?? null,
          basis: Object.fromEntries(
            paces.map((p) => [p.search, `${p.pace.tokens}/run (${p.pace.basis}, ${p.pace.runs} runs)`]),
          ),
        });
        continue;
      }
      if (e.kind === 'churn') {
        const filters = Object.fromEntries(searches.map((s) => [s.name, s.filter]));
        const changes = (
          await control('POST', 'company-churn', { share: o.churnShare, seed: seed * 1_000 + e.day, filters })
        ).changes as ChurnedCompany[];
        for (const c of changes) {
          for (const name of c.matches) {
            const pendingChange = changed.get(name)!;
            const pendingEnter = entering.get(name)!;
            if (c.change === 'changed') {
              const was = pendingChange.get(c.id);
              if (!was) figures.get(name)!.changedTracked++;
              pendingChange.set(c.id, { since: was?.since ?? e.at, headcount: c.headcount, runs: 0 });
            } else if (c.change === 'left') {
              pendingChange.delete(c.id);
              pendingEnter.delete(c.id);
            } else {
              figures.get(name)!.entered++;
              pendingEnter.set(c.id, { since: e.at, headcount: c.headcount, runs: 0 });
            }
          }
        }
        continue;
      }
      const s = e.search;
      const f = figures.get(s.name)!;
      const decision = await tokenPaceDecision(deps, s.name);
      if (decision?.delay) {
        f.paced++;
        pacedAt.push({ search: s, at: e.at });
        runs.push({
          search: s.name,
          day: dayOf(e.at),
          at: new Date(e.at).toISOString(),
          status: 'paced',
          tokens: 0,
          fetched: 0,
        });
        continue;
      }
      const summary = await syncSearch(deps, { search: s.name, runId: randomUUID(), trigger: 'schedule' });
      const { refresh } = summary;
      runs.push({
        search: s.name,
        day: dayOf(e.at),
        at: new Date(e.at).toISOString(),
        status: summary.status,
        ...(summary.stopReason ? { stopReason: summary.stopReason } : {}),
        ...(decision ? { gate: { run: decision.run, spendable: decision.spendable, needed: decision.needed } } : {}),
        tokens: summary.tokensSpent,
        fetched: summary.fetched,
        ...(refresh === undefined ? {} : { refresh }),
      });
      f.runs++;
      f.tokens += summary.tokensSpent;
      const gate = decision
        ? ` [gate: run ${decision.run}, spendable ${decision.spendable}, higher need ${decision.needed}]`
        : '';
      o.onRun?.(
        `day ${dayOf(e.at)} ${new Date(e.at).toISOString().slice(11, 16)} ${s.name}: ${summary.status}` +
          `${summary.stopReason ? ` (${summary.stopReason})` : ''} ${summary.tokensSpent} tokens${gate}`,
      );
      // The CRM against the truth, for this search's records.
      const table = hs.state.tables.get('companies')!;
      for (const [id, p] of entering.get(s.name)!) {
        if (table.findBy(matchField(s.name), id)) {
          if (dayOf(e.at) === dayOf(p.since)) f.enteredSameDay++;
          else if (f.enteredLate.length < 20)
            f.enteredLate.push(`${id} entered day ${dayOf(p.since)}, synced day ${dayOf(e.at)}`);
          if (p.runs === 0) f.enteredAtFirstRun++;
          entering.get(s.name)!.delete(id);
        } else p.runs++;
      }
      for (const [id, p] of changed.get(s.name)!) {
        if (table.findBy(matchField(s.name), id)?.properties.numberofemployees === String(p.headcount)) {
          f.maxStaleDays = Math.max(f.maxStaleDays, (e.at - p.since) / DAY);
          changed.get(s.name)!.delete(id);
        }
      }
    }

    for (const f of figures.values()) {
      for (const p of changed.get(f.search)!.values()) f.maxStaleDays = Math.max(f.maxStaleDays, (end - p.since) / DAY);
      f.changedOpenAtEnd = changed.get(f.search)!.size;
      f.enteredNeverSynced = entering.get(f.search)!.size;
      for (const [id, p] of entering.get(f.search)!)
        if (f.enteredLate.length < 20) f.enteredLate.push(`${id} entered day ${dayOf(p.since)}, never synced`);
      const later = runs.filter((r) => r.search === f.search && r.status === 'completed').slice(1);
      const mean = (v: (r: RunRecord) => number): number =>
        later.length === 0 ? 0 : Number((later.reduce((n, r) => n + v(r), 0) / later.length).toFixed(1));
      f.tokensPerRunAfterFirst = mean((r) => r.tokens);
      const block = (r: RunRecord): RefreshSummary | undefined => r.refresh as RefreshSummary | undefined;
      f.countsPerRun = mean((r) => block(r)?.counts ?? 0);
      f.walkedPerRun = mean((r) => {
        const w = block(r)?.walked;
        return w ? w.changed + w.new + w.stale : 0;
      });
      f.keptPartitions = later.length === 0 ? 0 : (block(later[later.length - 1]!)?.kept ?? 0);
      f.maxStaleDays = Number(f.maxStaleDays.toFixed(2));
    }
    const priorityViolations: PeriodResult['priorityViolations'] = [];
    for (const p of pacedAt) {
      const lower = runs.find(
        (r) =>
          r.tokens > 0 &&
          Date.parse(r.at) >= p.at &&
          (searches.find((s) => s.name === r.search)?.priority ?? 0) < p.search.priority,
      );
      if (lower)
        priorityViolations.push({
          paced: p.search.name,
          at: new Date(p.at).toISOString(),
          lowerRan: lower.search,
          lowerAt: lower.at,
        });
    }
    const stats = si.stats(ACCOUNT.accountId);
    const balance = await ledger.tokenBalance();
    await source.close();
    return {
      companies: o.companies,
      days: o.days,
      churnShare: o.churnShare,
      refresh: o.refresh,
      allotment,
      fullModeNeed,
      tokens: runs.reduce((n, r) => n + r.tokens, 0),
      remainingAtEnd: balance?.remaining ?? null,
      served402: stats.served402,
      exhaustedRuns: runs
        .filter((r) => r.stopReason === 'tokens_exhausted')
        .map((r) => ({ search: r.search, day: r.day, gateNeeded: r.gate?.needed ?? 0 })),
      otherEndings: runs
        .filter((r) => r.status !== 'completed' && r.status !== 'paced')
        .reduce<Record<string, number>>((m, r) => {
          const k = `${r.status}/${r.stopReason ?? '-'}`;
          m[k] = (m[k] ?? 0) + 1;
          return m;
        }, {}),
      priorityViolations,
      searches: [...figures.values()],
      forecasts: forecasts.map(({ at, ...fc }) => {
        const actualTokens = runs.filter((r) => Date.parse(r.at) >= at).reduce((n, r) => n + r.tokens, 0);
        return { ...fc, actualTokens, error: Number(((fc.forecastTokens - actualTokens) / actualTokens).toFixed(4)) };
      }),
      wallSeconds: Math.round((clock.real() - started) / 1000),
      runs,
    };
  } finally {
    await deleteKeysUnder(redis, prefix);
    await Promise.all([si.close(), hs.close()]);
    clock.uninstall();
  }
}
