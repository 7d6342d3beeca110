import { AppError } from '../shared/app-error.js';

/** One problem in a config file. `line`/`column` are 1-based; 0 when the problem has no place in the file. */
export interface ConfigIssue {
  file: string;
  line: number;
  column: number;
  /** Config path such as `searches[0].filter.company.headcount.gte` ('' for the whole document). */
  path: string;
  message: string;
}

/** `file:line:column path: message` — the one format every config error is printed in. */
export function formatIssue(issue: ConfigIssue): string {
  const place = issue.line > 0 ? `${issue.file}:${issue.line}:${issue.column}` : issue.file;
  return issue.path ? `${place} ${issue.path}: ${issue.message}` : `${place}: ${issue.message}`;
}

/** The config could not be loaded. Messages name places and paths, never secret values. */
export class ConfigError extends AppError {
  readonly issues: ConfigIssue[];

  constructor(issues: ConfigIssue[]) {
    const shown = issues.slice(0, 20).map(formatIssue).join('\n');
    const more = issues.length > 20 ? `\n(${issues.length - 20} more)` : '';
    super(
      'config_invalid',
      `invalid config (${issues.length} error${issues.length === 1 ? '' : 's'}):\n${shown}${more}`,
      {
        details: { issues },
      },
    );
    this.issues = issues;
  }
}
