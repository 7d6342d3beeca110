/**
 * One-shot commands with Redis down ($REDIS_URL at a closed port): one line naming REDIS_URL (its password never
 * shown), exit 4, and with --json one JSON error object instead. Child processes, as a user runs them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { freePort } from '../../src/shared/free-port.js';
import { cli, configYaml, searchYaml } from './cli-process.js';

/** A loopback port nothing listens on: bound to find it free, then closed. */
const closedPort = freePort;

const COMMANDS: string[][] = [
  ['run', 'dach'],
  ['plan', 'dach'],
  ['runs', 'dach'],
  ['rejects', 'dach'],
  ['trigger', 'dach'],
  ['validate', '--online'],
];

describe('one-shot commands with Redis down', () => {
  let dir: string;
  let env: Record<string, string>;
  let shown: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ps-noredis-'));
    const file = join(dir, 'c.yaml');
    await writeFile(file, configYaml(searchYaml('dach', '{every: 1h}')));
    const port = await closedPort();
    env = { PROSPECT_SYNC_CONFIG: file, REDIS_URL: `redis://:hunter2-redis-pw@127.0.0.1:${port}/3`, LOG_LEVEL: 'info' };
    shown = `redis://127.0.0.1:${port}/3`;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('each fails at once with one line naming REDIS_URL and exit 4', async () => {
    const children = COMMANDS.map((argv) => ({ argv, c: cli(argv, env) }));
    for (const { argv, c } of children) {
      expect(await c.exited, argv.join(' ')).toBe(EXIT.redisUnreachable);
      const err = c.err();
      expect(err.trim().split('\n'), `${argv.join(' ')}: ${err}`).toHaveLength(1);
      expect(err).toContain(
        `prospect-sync ${argv[0]}: Redis at ${shown} (REDIS_URL) is unreachable: connect ECONNREFUSED`,
      );
      expect(err + c.out()).not.toContain('hunter2');
      expect(c.out()).toBe('');
    }
  }, 60_000);

  it("a secret in the user name's place (redis://SECRET@host/3) is not shown either", async () => {
    const port = await closedPort();
    const children = [
      ['runs', 'dach'],
      ['trigger', 'dach', '--json'],
    ].map((argv) => ({
      argv,
      c: cli(argv, { ...env, REDIS_URL: `redis://hunter3-user-secret@127.0.0.1:${port}/3` }),
    }));
    for (const { argv, c } of children) {
      expect(await c.exited, argv.join(' ')).toBe(EXIT.redisUnreachable);
      expect(c.err() + c.out()).toContain(`Redis at redis://127.0.0.1:${port}/3 (REDIS_URL) is unreachable`);
      expect(c.err() + c.out()).not.toContain('hunter3');
    }
  }, 60_000);

  it('--json: one JSON error object on stdout, nothing on stderr', async () => {
    const children = COMMANDS.map((argv) => ({ argv, c: cli([...argv, '--json'], env) }));
    for (const { argv, c } of children) {
      expect(await c.exited, argv.join(' ')).toBe(EXIT.redisUnreachable);
      expect(c.err()).toBe('');
      const lines = c.out().trim().split('\n');
      expect(lines).toHaveLength(1);
      const { error } = JSON.parse(lines[0] ?? '') as { error: { code: string; message: string } };
      expect(error.code).toBe('redis_unreachable');
      expect(error.message).toContain(`Redis at ${shown} (REDIS_URL)`);
      expect(error.message).not.toContain('hunter2');
    }
  }, 60_000);
});
