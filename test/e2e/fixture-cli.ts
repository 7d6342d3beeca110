/**
 * The CLI as a user runs it against a fixture: a child process, the given YAML written as its config file (in a
 * temporary folder kept for the test file, removed by `cleanup`), the fixture's emulators and Redis prefix.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../queue/cli-process.js';
import type { Fixture } from '../jobs/sync-fixture.js';

export interface CliResult {
  code: number | null;
  out: string;
  err: string;
  /** The last stdout line as JSON (the `--json` answer). */
  last(): unknown;
}

export function fixtureCli(label: string): {
  run(f: Fixture, yaml: string, args: string[], env?: Record<string, string>): Promise<CliResult>;
  cleanup(): Promise<void>;
} {
  let dir: string | undefined;
  return {
    async run(f, yaml, args, env = {}) {
      dir ??= await mkdtemp(join(tmpdir(), `ps-${label}-`));
      const file = join(dir, 'config.yaml');
      await writeFile(file, yaml);
      const c = cli([...args, '--config', file], { ...f.env, QUEUE_PREFIX: f.prefix, LOG_LEVEL: 'silent', ...env });
      const code = await c.exited;
      const out = c.out();
      return { code, out, err: c.err(), last: () => JSON.parse(out.trim().split('\n').at(-1) ?? 'null') };
    },
    async cleanup() {
      if (dir) await rm(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}
