/**
 * The command line's manners: help and version, typed option values, mistyped commands, usage errors as JSON.
 * Parsing runs in this process through the real program (runCli) with stdout/stderr captured; two child processes
 * check that the exit code reaches the shell.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { cli, configYaml, searchYaml } from './cli-process.js';

async function capture(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    const code = await runCli(argv);
    return { code, out, err };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
}

/** Every command of the contract with the options its docs promise (README, docs/runs.md, docs/operations.md). */
const DOCUMENTED: Record<string, string[]> = {
  validate: ['--online', '--json', '--config'],
  schema: [],
  plan: ['[search]', '--all', '--json', '--config'],
  account: ['--json', '--config'],
  run: ['<search>', '--dry-run', '--full-resync', '--json', '--config'],
  trigger: ['<search>', '--full-resync', '--force', '--json', '--config'],
  start: ['--config', '--concurrency', '--port', '--host'],
  worker: ['--config', '--concurrency'],
  scheduler: ['--config'],
  dashboard: ['--config', '--port', '--host'],
  runs: ['[search]', '--limit', '--json', '--config'],
  rejects: ['<search>', '--limit', '--json', '--config', '--all'],
  emulate: ['--si-port', '--hubspot-port', '--sf-port', '--json'],
  demo: ['--once', '--search', '--config'],
};

describe('prospect-sync help and version', () => {
  it('--help and help: the program lists all 14 commands, exit 0', async () => {
    for (const argv of [['--help'], ['-h'], ['help']]) {
      const r = await capture(argv);
      expect(r.code, argv.join(' ')).toBe(0);
      for (const name of Object.keys(DOCUMENTED)) expect(r.out).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
      expect(r.out).toContain('4 Redis unreachable');
    }
  });

  it.each(Object.entries(DOCUMENTED))(
    '%s --help: exit 0, shows its documented arguments and options',
    async (name, options) => {
      for (const argv of [
        [name, '--help'],
        ['help', name],
      ]) {
        const r = await capture(argv);
        expect(r.code, argv.join(' ')).toBe(0);
        expect(r.out).toContain(`Usage: prospect-sync ${name}`);
        for (const option of options) expect(r.out).toContain(option);
      }
    },
  );

  it('--version prints the version of package.json', async () => {
    const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const r = await capture(['--version']);
    expect(r.code).toBe(0);
    expect(r.out.trim()).toBe(version);
  });
});

describe('prospect-sync usage errors (exit 2, naming the option)', () => {
  it.each([
    [['runs', 'x', '--limit', 'abc'], "'--limit <n>' argument 'abc' is invalid"],
    [['runs', 'x', '--limit', '1.5'], "'--limit <n>' argument '1.5' is invalid"],
    [['rejects', 'x', '--limit', '0'], "'--limit <n>' argument '0' is invalid"],
    [['dashboard', '--port', 'abc'], "'--port <n>' argument 'abc' is invalid"],
    [['start', '--port', '70000'], "'--port <n>' argument '70000' is invalid"],
    [['worker', '--concurrency', '0'], "'--concurrency <n>' argument '0' is invalid"],
    [['start', '--concurrency', '2x'], "'--concurrency <n>' argument '2x' is invalid"],
    [['emulate', '--si-port', '-1'], "'--si-port <n>' argument '-1' is invalid"],
    [['run'], "missing required argument 'search'"],
    [['plan'], "missing required argument 'search' (or --all)"],
    [['plan', 'x', '--all'], 'plan takes a search or --all, not both'],
    [['run', 'a', 'b'], 'too many arguments'],
    [['schema', 'extra'], 'too many arguments'],
    [['run', 'x', '--dryrun'], "unknown option '--dryrun'"],
    [['worker', '--port', '3000'], "unknown option '--port'"],
  ])('%j', async (argv, message) => {
    const r = await capture(argv);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.err).not.toMatch(/NaN/);
    expect(r.out).toBe('');
  });

  it('an invalid port from the environment names the variable', async () => {
    vi.stubEnv('SI_EMULATOR_PORT', 'abc');
    try {
      const r = await capture(['emulate']);
      expect(r.code).toBe(2);
      expect(r.err).toContain("from env 'SI_EMULATOR_PORT' is invalid");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('mistyped commands and options get a suggestion', async () => {
    const cmd = await capture(['rnu', 'x']);
    expect(cmd.code).toBe(2);
    expect(cmd.err).toContain("unknown command 'rnu'");
    expect(cmd.err).toMatch(/did you mean run\?/i);
    const opt = await capture(['run', 'x', '--dryrun']);
    expect(opt.err).toMatch(/did you mean --dry-run\?/i);
  });

  it('no command: the help on stderr, exit 2', async () => {
    const r = await capture([]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('Usage: prospect-sync');
  });

  it('--json: a usage error is one JSON object on stdout, nothing on stderr', async () => {
    const r = await capture(['runs', 'x', '--limit', 'abc', '--json']);
    expect(r.code).toBe(2);
    expect(r.err).toBe('');
    const error = JSON.parse(r.out) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('usage_error');
    expect(error.error.message).toContain('--limit');
  });
});

describe('prospect-sync config errors', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('trigger nope --json: unknown search as a JSON error, exit 2; text without --json', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ps-usage-'));
    const file = join(dir, 'c.yaml');
    await writeFile(file, configYaml(searchYaml('dach', '{every: 1h}')));
    vi.stubEnv('SI_CLIENT_SECRET', 's');
    vi.stubEnv('HUBSPOT_TOKEN', 't');
    try {
      const json = await capture(['trigger', 'nope', '--json', '--config', file]);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.out)).toEqual({
        error: { code: 'search_not_found', message: "unknown search 'nope' (known: dach)" },
      });
      const text = await capture(['trigger', 'nope', '--config', file]);
      expect(text.code).toBe(2);
      expect(text.err).toBe("prospect-sync trigger: unknown search 'nope' (known: dach)\n");

      // an invalid config: file:line issues, also as JSON
      await writeFile(file, configYaml(searchYaml('dach', '{every: soon}')));
      const bad = await capture(['runs', 'dach', '--json', '--config', file]);
      expect(bad.code).toBe(2);
      const { error } = JSON.parse(bad.out) as {
        error: { code: string; message: string; issues: { file: string; line: number }[] };
      };
      expect(error.code).toBe('config_invalid');
      expect(error.message).toContain(`${file}:`);
      expect(error.issues[0]).toMatchObject({ file, line: expect.any(Number) as number });
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe('exit codes reach the shell (child process)', () => {
  it('--help exits 0, an invalid option value exits 2', async () => {
    const help = cli(['run', '--help'], {});
    const bad = cli(['runs', 'x', '--limit', 'abc'], {});
    expect(await help.exited).toBe(0);
    expect(help.out()).toContain('Usage: prospect-sync run');
    expect(await bad.exited).toBe(2);
    expect(bad.err()).toContain('--limit');
  }, 30_000);
});
