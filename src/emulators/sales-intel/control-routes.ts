/**
 * Test-control endpoints under {basePath}/__emulator/* so a test can drive an emulator in another process:
 * GET stats[?accountId=], POST reset, POST faults (EmulatorFaultsInit JSON), POST faults/clear, GET churn,
 * POST token-balance {accountId, remaining, resetInSeconds?}, POST expire-tokens, POST insert-persons {count, filter?,
 * spread?},
 * POST company-headcount {id, headcount} or {moves: [{id, headcount}, ...]} (companies move into or out of filters
 * between runs; all moves or none).
 * POST company-churn {share, seed, filters?} (a step of index churn: companies change, leave, enter).
 */
import type { Reply } from './http-io.js';
import { message } from './http-io.js';
import type { EmulatorFaultsInit, SalesIntelEmulator } from './types.js';

type Controls = Pick<
  SalesIntelEmulator,
  | 'faults'
  | 'stats'
  | 'resetStats'
  | 'setTokenBalance'
  | 'expireAllTokens'
  | 'insertPersons'
  | 'setCompanyHeadcount'
  | 'setCompanyHeadcounts'
  | 'churnCompanies'
>;

/** Most moves one company-headcount call takes. */
export const MAX_HEADCOUNT_MOVES = 10_000;

const BODY_ROUTES = new Set(['faults', 'token-balance', 'insert-persons', 'company-headcount', 'company-churn']);

function jsonObject(raw: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function headcountMove(v: unknown): { id: string; headcount: number } | undefined {
  const { id, headcount } = (typeof v === 'object' && v !== null ? v : {}) as { id?: unknown; headcount?: unknown };
  return typeof id === 'string' && typeof headcount === 'number' && Number.isInteger(headcount) && headcount >= 1
    ? { id, headcount }
    : undefined;
}

/** One move (`{id, headcount}`) or many (`{moves: [...]}`); undefined when any is malformed. */
function headcountMoves(body: Record<string, unknown>): { id: string; headcount: number }[] | undefined {
  if (body.moves === undefined) {
    const one = headcountMove(body);
    return one === undefined ? undefined : [one];
  }
  if (!Array.isArray(body.moves) || body.moves.length === 0 || body.moves.length > MAX_HEADCOUNT_MOVES)
    return undefined;
  const moves = body.moves.map(headcountMove);
  return moves.every((m) => m !== undefined) ? (moves as { id: string; headcount: number }[]) : undefined;
}

export function handleControl(
  c: Controls,
  method: string,
  path: string,
  params: URLSearchParams,
  rawBody: string,
): Reply {
  const ok: Reply = { status: 200, body: { ok: true } };
  const key = `${method} ${path}`;
  if (key === 'GET stats') return { status: 200, body: c.stats(params.get('accountId') ?? undefined) };
  if (key === 'GET churn') return { status: 200, body: c.faults.churnLog() };
  if (key === 'GET faults') return { status: 200, body: c.faults.current() };
  if (key === 'POST reset') {
    c.resetStats();
    return ok;
  }
  if (key === 'POST expire-tokens') {
    c.expireAllTokens();
    return ok;
  }
  if (key === 'POST faults/clear') {
    c.faults.clear();
    return ok;
  }
  const body = jsonObject(rawBody);
  if (method === 'POST' && BODY_ROUTES.has(path) && !body) return message(400, 'body must be a JSON object');
  if (key === 'POST faults') {
    c.faults.set(body as EmulatorFaultsInit);
    return ok;
  }
  if (key === 'POST token-balance') {
    const { accountId, remaining, resetInSeconds } = body as {
      accountId?: unknown;
      remaining?: unknown;
      resetInSeconds?: unknown;
    };
    if (
      typeof accountId !== 'string' ||
      typeof remaining !== 'number' ||
      (resetInSeconds !== undefined && typeof resetInSeconds !== 'number')
    ) {
      return message(400, 'needs {accountId: string, remaining: number, resetInSeconds?: number}');
    }
    try {
      c.setTokenBalance(accountId, remaining, resetInSeconds);
    } catch {
      return message(404, 'unknown account');
    }
    return ok;
  }
  if (key === 'POST insert-persons') {
    const { count, filter, spread } = body as { count?: unknown; filter?: unknown; spread?: unknown };
    if (
      typeof count !== 'number' ||
      !Number.isInteger(count) ||
      count < 0 ||
      (filter !== undefined && (typeof filter !== 'object' || filter === null)) ||
      (spread !== undefined && spread !== 'random' && spread !== 'even')
    ) {
      return message(400, "needs {count: integer >= 0, filter?: object, spread?: 'random' | 'even'}");
    }
    try {
      return {
        status: 200,
        body: {
          inserted: c.insertPersons(
            count,
            filter as Record<string, unknown> | undefined,
            spread as 'random' | 'even' | undefined,
          ),
        },
      };
    } catch (err) {
      return message(400, err instanceof Error ? err.message : 'invalid filter');
    }
  }
  if (key === 'POST company-headcount') {
    const moves = headcountMoves(body!);
    if (moves === undefined)
      return message(
        400,
        `needs {id: string, headcount: integer >= 1} or {moves: [{id, headcount}, ...]} (1 to ${MAX_HEADCOUNT_MOVES})`,
      );
    try {
      c.setCompanyHeadcounts(moves);
    } catch (err) {
      return message(404, err instanceof Error ? err.message : 'unknown company');
    }
    return { status: 200, body: { ok: true, moved: moves.length } };
  }
  if (key === 'POST company-churn') {
    const { share, seed, filters } = body as { share?: unknown; seed?: unknown; filters?: unknown };
    if (
      typeof share !== 'number' ||
      !(share >= 0 && share <= 1) ||
      typeof seed !== 'number' ||
      !Number.isInteger(seed) ||
      (filters !== undefined && (typeof filters !== 'object' || filters === null || Array.isArray(filters)))
    ) {
      return message(400, 'needs {share: number 0..1, seed: integer, filters?: {name: company search body}}');
    }
    try {
      return {
        status: 200,
        body: { changes: c.churnCompanies(share, seed, filters as Record<string, unknown> | undefined) },
      };
    } catch (err) {
      return message(400, err instanceof Error ? err.message : 'invalid filter');
    }
  }
  return message(404, `no control route ${method} ${path}`);
}
