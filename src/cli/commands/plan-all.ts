/**
 * `plan --all [--json]`: every scheduled search until the token reset: its runs left, tokens and credits per run
 * (from its recent runs; a search never run costs one free count), the total against the balance and the allotment,
 * and the first run the balance no longer covers at this pace (src/runs/allotment-forecast.ts). Spends no search
 * tokens and no credits. Exit 0, 2 config error.
 */
import type { Redis } from 'ioredis';
import {
  configTimeZone,
  refreshSettings,
  scheduleTimeZone,
  type AppConfig,
  type SavedSearch,
} from '../../config/index.js';
import { refreshCadence } from '../../runs/refresh-selection.js';
import {
  forecastAllotment,
  paceFromCount,
  paceFromHistory,
  type AllotmentForecast,
  type RunPace,
  type SearchPaceInput,
} from '../../runs/allotment-forecast.js';
import { readOverviews } from '../../runs/run-overview.js';
import { inLanes } from '../../shared/in-lanes.js';
import { whenIn } from '../../shared/when.js';
import type { Filter, SourceClient } from '../../source/index.js';
import { printJson, withSourceCommand, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';

const withCredits = (s: SavedSearch): boolean => s.entity === 'persons' && (s.view ?? []).includes('contacts');

/** Counts in flight at once (the account's count governor paces them, as a run's re-count). */
const COUNT_LANES = 32;

/**
 * Each scheduled search's pace: its recent runs (its overview, one read for all), else one free count (the only count
 * this command spends per search), the searches side by side in lanes.
 */
async function paces(
  config: AppConfig,
  source: SourceClient,
  redis: Redis,
  prefix: string,
): Promise<SearchPaceInput[]> {
  const now = Date.now();
  const scheduled = config.searches.filter((x) => x.schedule !== undefined);
  const overviews = await readOverviews(
    redis,
    scheduled.map((s) => s.name),
    prefix,
  );
  const recent = new Map(scheduled.map((s, i) => [s.name, overviews[i]?.recent ?? []]));
  return inLanes(scheduled, COUNT_LANES, async (s): Promise<SearchPaceInput> => {
    const history = paceFromHistory(recent.get(s.name) ?? []);
    // Refresh mode `changed`: the first run walks everything, the later ones their share
    // (src/runs/refresh-selection.ts).
    const refresh = refreshSettings(config, s);
    const changed =
      refresh.mode === 'changed'
        ? { runsPerInterval: refreshCadence(s.schedule, refresh.maxAgeDays, now).runsPerInterval }
        : undefined;
    const pace: RunPace =
      history ?? paceFromCount(await source.count(s.entity, s.filter as Filter), s, withCredits(s), changed);
    return { search: s.name, schedule: s.schedule, pace };
  });
}

/**
 * Times beside UTC in the config's time zone (a search's own for its next run): `2026-11-28 05:00 Europe/Berlin
 * (04:00Z)`.
 */
function render(f: AllotmentForecast | null, searches: SearchPaceInput[], config: AppConfig): string {
  const zone = configTimeZone(config.searches);
  const at = (iso: string, search?: string): string =>
    whenIn(Date.parse(iso), scheduleTimeZone(config.searches.find((s) => s.name === search)?.schedule) ?? zone);
  if (searches.length === 0) return 'no scheduled searches';
  if (!f) {
    const lines = searches.map(
      (s) => `  ${s.search}  ${s.pace.tokens} tokens, ${s.pace.credits} credits per run [${s.pace.basis}]`,
    );
    return ['token balance unknown (no search made yet this period): no forecast', ...lines].join('\n');
  }
  const width = Math.max(6, ...f.searches.map((s) => s.search.length));
  const rows = f.searches.map(
    (s) =>
      `  ${s.search.padEnd(width)}  ${String(s.runsLeft).padStart(6)}  ${String(s.tokensPerRun).padStart(10)}  ` +
      `${String(s.creditsPerRun).padStart(8)}  ${String(s.tokens).padStart(10)}  ${String(s.credits).padStart(8)}` +
      `  ${s.basis.padEnd(7)}  ${s.nextRunAt ? at(s.nextRunAt, s.search) : '—'}`,
  );
  return [
    `allotment until ${at(f.resetAt)}: balance ${f.remaining} ` +
      `of ${f.limit}${f.reserve > 0 ? ` (reserve ${f.reserve})` : ''}`,
    `  ${'search'.padEnd(width)}  ${'runs'.padStart(6)}  ${'tokens/run'.padStart(10)}  ${'cred/run'.padStart(8)}` +
      `  ${'tokens'.padStart(10)}  ${'credits'.padStart(8)}  ${'basis'.padEnd(7)}  next run`,
    ...rows,
    `  total        ${f.tokens} tokens, ${f.credits} credits until the reset; ${f.tokensLeftAtReset} tokens left then`,
    f.exhaustsAt
      ? `  exhausted    ${f.exhaustsAt.slice(0, 10)} (run of ${f.exhaustedBy} ` +
        `at ${at(f.exhaustsAt, f.exhaustedBy ?? undefined)}), ` +
        'before the reset at this pace'
      : '  exhausted    not before the reset at this pace',
  ].join('\n');
}

/**
 * What `plan --all` shows: each scheduled search's pace, and the forecast until the reset (null while the balance is
 * unknown).
 */
export async function allotmentForecastOf(
  { config, source, redis, prefix }: { config: AppConfig; source: SourceClient; redis: Redis; prefix: string },
  now = new Date(),
): Promise<{ forecast: AllotmentForecast | null; searches: SearchPaceInput[] }> {
  const searches = await paces(config, source, redis, prefix);
  const balance = await source.ledger.tokenBalance();
  return {
    forecast: balance ? forecastAllotment({ balance, reserve: config.source.tokens.reserve, searches, now }) : null,
    searches,
  };
}

export async function runCommand(opts: ConfigOption & JsonOption): Promise<number> {
  return withSourceCommand(opts.config, async (cmd) => {
    const { forecast, searches } = await allotmentForecastOf(cmd);
    if (opts.json) printJson({ forecast, searches: searches.map((s) => ({ search: s.search, ...s.pace })) });
    else process.stdout.write(`${render(forecast, searches, cmd.config)}\n`);
    return EXIT.ok;
  });
}
