/**
 * `validate --online`: what the API's token endpoint and each search's CRM preflight refused, as config issues at
 * the line they concern (the credential, the mapped field, the match field, the object). Anything else (a remote
 * down) is not a config problem and is thrown on.
 */
import { formatPath, withCredentialHint, type ConfigIssue, type LoadedConfig } from '../config/index.js';
import { CrmPreflightError, type PreflightProblem } from '../crm/preflight-error.js';
import type { CrmOptOut } from '../config/suppress-settings.js';
import { AppError } from '../shared/app-error.js';

type Path = (string | number)[];

function issueAt(loaded: LoadedConfig, path: Path, message: string): ConfigIssue {
  return { file: loaded.file, ...loaded.locate(path), path: formatPath(path), message };
}

/** The API refused the client credentials: one issue at the secret; other failures are thrown on. */
export async function sourceAuthIssues(
  loaded: LoadedConfig,
  authenticate: () => Promise<void>,
): Promise<ConfigIssue[]> {
  try {
    await authenticate();
    return [];
  } catch (error) {
    if (error instanceof AppError && error.code === 'source_unauthorized')
      return [
        issueAt(loaded, ['source', 'auth', 'clientSecret'], withCredentialHint(loaded, error.code, error.message)),
      ];
    throw error;
  }
}

const CREDENTIAL: Readonly<Record<string, string>> = { hubspot: 'accessToken', salesforce: 'clientSecret' };

/** An opt-out field's line: in the search's own `suppress.crm` if it names it, else the top-level one's. */
function optOutPath(loaded: LoadedConfig, index: number, field: string): Path {
  const within = (crm: CrmOptOut | undefined, at: Path): Path | undefined => {
    if (crm === undefined) return undefined;
    if (crm.property === field) return [...at, 'property'];
    if (crm.field === field) return [...at, 'field'];
    const i = crm.fields.indexOf(field);
    return i >= 0 ? [...at, 'fields', i] : undefined;
  };
  return (
    within(loaded.config.searches[index]?.suppress?.crm, ['searches', index, 'suppress', 'crm']) ??
    within(loaded.config.suppress.crm, ['suppress', 'crm']) ?? ['searches', index, 'object']
  );
}

function problemPath(loaded: LoadedConfig, index: number, problem: PreflightProblem): Path {
  if (problem.at === 'suppress') return optOutPath(loaded, index, problem.field);
  if (problem.at === 'fields') return ['searches', index, 'fields', problem.field];
  if (problem.at === 'matchOn') return ['searches', index, 'matchOn', 'field'];
  if (problem.at === 'onLeave') return ['searches', index, 'onLeave', 'setFields', problem.field];
  return ['searches', index, problem.at === 'associate' || problem.at === 'list' ? problem.at : 'object'];
}

/**
 * Each search's preflight: a refused credential once per destination (at the credential), schema problems at the
 * search's lines.
 */
export async function crmPreflightIssues(
  loaded: LoadedConfig,
  preflight: (search: string) => Promise<void>,
): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  const refused = new Set<string>();
  for (const [index, search] of loaded.config.searches.entries()) {
    if (refused.has(search.destination)) continue;
    try {
      await preflight(search.name);
    } catch (error) {
      if (error instanceof CrmPreflightError) {
        for (const problem of error.problems)
          issues.push(issueAt(loaded, problemPath(loaded, index, problem), problem.message));
      } else if (error instanceof AppError && error.code === 'crm_auth_failed') {
        refused.add(search.destination);
        const type = loaded.config.destinations[search.destination]?.type ?? '';
        const message = withCredentialHint(loaded, error.code, error.message, search.destination);
        issues.push(issueAt(loaded, ['destinations', search.destination, CREDENTIAL[type] ?? 'type'], message));
      } else if (error instanceof AppError && error.code === 'crm_schema_mismatch') {
        issues.push(issueAt(loaded, ['searches', index, 'object'], error.message));
      } else {
        throw error;
      }
    }
  }
  return issues;
}
