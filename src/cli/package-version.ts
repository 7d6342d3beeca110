/** The version in package.json, found from this file whether it runs from src/cli/ (tsx) or dist/src/cli/ (built). */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'prospect-sync' && pkg.version) return pkg.version;
    } catch {
      // not at this level: try the next one up
    }
  }
  return 'unknown';
}
