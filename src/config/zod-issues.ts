/** Turns zod's issues into short, positioned config issues that never echo a value. */
import type { z } from 'zod';
import type { ConfigPath } from './yaml-tree.js';
import type { PathIssue } from './path-issue.js';

type ZodIssue = z.core.$ZodIssue;

/** Among a union's branches, the one that got furthest: fewest issues, preferring issues below the union itself. */
function closestBranch(branches: ZodIssue[][]): ZodIssue[] {
  const score = (issues: ZodIssue[]): number =>
    issues.length + (issues.some((issue) => issue.path.length === 0 && issue.code === 'invalid_type') ? 100 : 0);
  return [...branches].sort((a, b) => score(a) - score(b))[0] ?? [];
}

/** zod's message without its category prefix (zod's messages name types and limits, never the input). */
function message(issue: ZodIssue, present: boolean): string {
  if (!present) return 'missing (required)';
  return issue.message
    .replace(/^(Invalid input|Invalid option|Invalid string|Too small|Too big): /, '')
    .replace(/^Invalid (option|input)$/, 'invalid value');
}

/** Flattens zod issues (unions to their closest branch, unknown keys one per key) into path issues. */
export function fromZodIssues(
  issues: readonly ZodIssue[],
  exists: (path: ConfigPath) => boolean,
  base: ConfigPath = [],
): PathIssue[] {
  const out: PathIssue[] = [];
  for (const issue of issues) {
    const path: ConfigPath = [...base, ...(issue.path as (string | number)[])];
    if (issue.code === 'invalid_key') {
      const why = issue.issues.map((inner) => message(inner, true)).join('; ');
      out.push({ path, message: `invalid name: ${why}`, at: 'key' });
    } else if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: [...path, key], message: 'unknown key', at: 'key' });
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0 && exists(path)) {
      out.push(...fromZodIssues(closestBranch(issue.errors), exists, path));
    } else if (
      issue.code === 'invalid_union' &&
      issue.discriminator !== undefined &&
      'options' in issue &&
      issue.options
    ) {
      const at = path[path.length - 1] === issue.discriminator ? path : [...path, issue.discriminator];
      out.push({ path: at, message: exists(at) ? `expected ${issue.options.join(' | ')}` : 'missing (required)' });
    } else {
      out.push({ path, message: message(issue, exists(path)) });
    }
  }
  return out;
}
