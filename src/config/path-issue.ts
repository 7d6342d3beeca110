import type { ConfigPath } from './yaml-tree.js';

/** A problem found at a config path, before it is placed in the file (as a `ConfigIssue`, config-error.ts). */
export interface PathIssue {
  path: ConfigPath;
  message: string;
  /** Point at the key rather than the value (unknown or ignored keys). */
  at?: 'key';
}
