/**
 * The API's refusal of a search's filter (a 400 naming paths of the body) as config issues at their lines:
 * `validate --online` asks for it with one count per search (counts cost no token); `plan` and `run` report a refusal
 * of their own requests the same way.
 */
import { ConfigError, filterIssues, type BodyProblem, type LoadedConfig } from '../config/index.js';
import type { Filter, SourceClient } from '../source/index.js';
import { SourceValidationError } from '../source/errors.js';

/** The problems of a refusal that name a place in the body (a refused query parameter is not the filter's). */
function bodyProblems(error: unknown): BodyProblem[] | null {
  if (!(error instanceof SourceValidationError)) return null;
  const placed = error.problems.filter((p) => p.path !== undefined);
  return placed.length > 0 ? placed : null;
}

/** One count of search `index`'s filter: what the API refused in it, nothing when it accepted it. */
export async function askFilter(
  client: Pick<SourceClient, 'count'>,
  loaded: LoadedConfig,
  index: number,
): Promise<BodyProblem[]> {
  const search = loaded.config.searches[index];
  if (!search) return [];
  try {
    await client.count(search.entity, search.filter as Filter);
    return [];
  } catch (error) {
    const problems = bodyProblems(error);
    if (problems) return problems;
    throw error;
  }
}

/** `error`, when it is the API refusing search `name`'s filter, as a ConfigError at its lines; else `error` itself. */
export function filterRefusal(error: unknown, loaded: LoadedConfig, name: string): unknown {
  const problems = bodyProblems(error);
  const index = loaded.config.searches.findIndex((s) => s.name === name);
  if (!problems || index < 0) return error;
  return new ConfigError(filterIssues(loaded, index, problems));
}
