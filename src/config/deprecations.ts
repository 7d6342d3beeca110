/**
 * Keys that still load but no longer do anything, each with a warning that says what replaces it. Reported like
 * every config warning (`validate`), never fatal.
 */
import type { PathIssue } from './path-issue.js';
import type { ConfigPath } from './yaml-tree.js';

interface SearchKeys {
  allowPartial?: boolean | undefined;
  onShortfall?: 'stop' | 'refuse';
}

export function checkDeprecated(search: SearchKeys, at: ConfigPath, warnings: PathIssue[]): void {
  if (search.allowPartial === undefined) return;
  warnings.push({
    path: [...at, 'allowPartial'],
    message:
      'deprecated and ignored: a run now spends up to the binding cap and ends partial (onShortfall: stop, the ' +
      'default); ' +
      'to refuse a run the budget cannot cover, set onShortfall: refuse',
    at: 'key',
  });
}
