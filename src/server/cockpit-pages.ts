/** Reads what /runs and /runs/<search> show (runs, live jobs, budget, alerts) and renders them. */
import type { Request, Response } from 'express';
import { listRuns } from '../runs/run-history.js';
import { Turns } from '../shared/in-turns.js';
import { readBudgetStates } from '../source/budget-states.js';
import { alertsInForce } from './alerts-in-force.js';
import { budgetStrip } from './budget-strip.js';
import { csrfToken, runButtons } from './run-actions.js';
import { activeRuns, searchRows, type RunViewSources } from './run-views.js';
import { runHistoryPage, runsIndexPage } from './runs-pages.js';

export interface CockpitSources extends RunViewSources {
  creditCaps?: (() => { maxPerRun?: number; maxPerDay?: number }) | undefined;
  tokenReserve?: (() => number) | undefined;
  /** Whether the pages offer "Run now" and "Full resync". */
  runActions: boolean;
}

/** Runs the search page's charts cover (the history keeps 50 by default). */
const CHART_RUNS = 200;

/** /runs: its reads, the budget strip's forecast and its rows in the same turns of the event loop. */
export async function overviewHtml(src: CockpitSources, req: Request, res: Response): Promise<string> {
  const turns = new Turns();
  const [rows, budgets, alerts] = await Promise.all([
    searchRows(src, turns),
    readBudgetStates(src.redis, src.prefix),
    alertsInForce(src.redis, src.prefix),
  ]);
  const budget = await budgetStrip(
    {
      budgets,
      caps: src.creditCaps?.() ?? {},
      reserve: src.tokenReserve?.() ?? 0,
      searches: rows,
      now: Date.now(),
    },
    turns,
  );
  const token = src.runActions ? csrfToken(req, res) : undefined;
  return runsIndexPage(rows, {
    budget,
    alerts,
    turns,
    ...(token ? { actions: (search: string) => runButtons(search, token) } : {}),
  });
}

export async function searchHtml(
  src: CockpitSources,
  search: string,
  limit: number,
  req: Request,
  res: Response,
): Promise<string> {
  const [runs, live, alerts] = await Promise.all([
    listRuns(src.redis, search, { prefix: src.prefix, limit: Math.max(limit, CHART_RUNS) }),
    activeRuns(src),
    alertsInForce(src.redis, src.prefix),
  ]);
  const actions = src.runActions ? runButtons(search, csrfToken(req, res), { resync: true }) : undefined;
  return runHistoryPage(search, runs, live.get(search), { limit, alerts, ...(actions ? { actions } : {}) });
}
