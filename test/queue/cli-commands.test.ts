import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openQueues } from '../../src/queue/index.js';
import { cli, configYaml, searchYaml, type CliChild } from './cli-process.js';
import { queueEnv, waitFor } from './queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';

describe('process commands', () => {
  const closers = closeAfterEach();

  async function setup(label: string) {
    const env = await queueEnv(label);
    const queues = openQueues(env.ctx);
    const dir = await mkdtemp(join(tmpdir(), 'ps-cli-'));
    closers.push(env.cleanup, queues.close, () => rm(dir, { recursive: true, force: true }));
    const configPath = join(dir, 'prospect-sync.yaml');
    const childEnv = { QUEUE_PREFIX: env.ctx.prefix, PROSPECT_SYNC_CONFIG: configPath };
    const run = (args: string[]): CliChild => {
      const c = cli(args, childEnv);
      closers.push(async () => {
        if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
      });
      return c;
    };
    return { env, queues, configPath, run };
  }

  it('trigger: queues a run, reports (not doubles) a pending one, --json, unknown search exits 2', async () => {
    const { queues, configPath, run } = await setup('cli-trigger');
    await writeFile(configPath, configYaml(searchYaml('dach', '{every: 1h}')));

    const first = run(['trigger', 'dach']);
    expect(await first.exited, first.err()).toBe(0);
    const jobId = /queued run of dach: job (\S+)/.exec(first.out())?.[1];
    expect(jobId).toBeTruthy();

    const second = run(['trigger', 'dach', '--json']);
    expect(await second.exited, second.err()).toBe(0);
    const lines = second.out().trim().split('\n');
    expect(JSON.parse(lines[lines.length - 1] ?? '')).toEqual({
      search: 'dach',
      jobId,
      deduplicated: true,
      state: 'waiting',
    });

    const third = run(['trigger', 'dach']);
    expect(await third.exited).toBe(0);
    expect(third.out()).toContain(`run already in progress: job ${jobId} (waiting)`);
    expect(await queues.sync.getJobCounts('waiting', 'active', 'delayed')).toEqual({
      waiting: 1,
      active: 0,
      delayed: 0,
    });

    const unknown = run(['trigger', 'nope']);
    expect(await unknown.exited).toBe(2);
    expect(unknown.err()).toContain("unknown search 'nope'");
  });

  it('trigger --full-resync: the job data carries fullResync: true (absent without the flag)', async () => {
    const { queues, configPath, run } = await setup('cli-trigger-resync');
    await writeFile(configPath, configYaml(searchYaml('dach', '{every: 1h}') + searchYaml('other', '{every: 1h}')));
    const full = run(['trigger', 'dach', '--full-resync', '--json']);
    expect(await full.exited, full.err()).toBe(0);
    const { jobId } = JSON.parse(full.out().trim().split('\n').at(-1) ?? '') as { jobId: string };
    expect((await queues.sync.getJob(jobId))?.data).toMatchObject({ search: 'dach', fullResync: true });

    const pending = run(['trigger', 'dach', '--full-resync']);
    expect(await pending.exited).toBe(0);
    expect(pending.out()).toContain('--full-resync does not apply to it');

    const plain = run(['trigger', 'other', '--json']);
    expect(await plain.exited).toBe(0);
    const other = JSON.parse(plain.out().trim().split('\n').at(-1) ?? '') as { jobId: string };
    expect((await queues.sync.getJob(other.jobId))?.data.fullResync).toBeUndefined();
  });

  it(
    'scheduler: creates schedulers, SIGHUP applies changes and keeps the old config when the new one is invalid, ' +
      'SIGTERM exits 0',
    async () => {
      const { queues, configPath, run } = await setup('cli-scheduler');
      await writeFile(
        configPath,
        configYaml(
          searchYaml('one', '{every: 1h}') + searchYaml('two', '{cron: "0 6 * * *", timezone: Europe/Berlin}'),
        ),
      );
      const ids = async (): Promise<string> =>
        (await queues.tick.getJobSchedulers(0, -1))
          .map((s) => `${s.key}:${s.pattern ?? s.every}`)
          .sort()
          .join(',');

      const scheduler = run(['scheduler']);
      await waitFor(async () => (await ids()) === 'one:3600000,two:0 6 * * *' || undefined, 20_000);

      await writeFile(configPath, configYaml(searchYaml('two', '{cron: "30 7 * * *", timezone: Europe/Berlin}')));
      scheduler.child.kill('SIGHUP');
      await waitFor(async () => (await ids()) === 'two:30 7 * * *' || undefined, 10_000);

      await writeFile(configPath, 'searches: [oops\n');
      scheduler.child.kill('SIGHUP');
      await waitFor(
        () =>
          scheduler.out().includes('config reload failed') ||
          scheduler.err().includes('config reload failed') ||
          undefined,
        10_000,
      );
      expect(await ids()).toBe('two:30 7 * * *');

      scheduler.child.kill('SIGTERM');
      expect(await scheduler.exited).toBe(0);
    },
  );

  it('dashboard: serves /healthz on the configured port, exits 0 on SIGTERM', async () => {
    const { configPath, run } = await setup('cli-dashboard');
    await writeFile(configPath, configYaml(searchYaml('one', '{every: 1h}')));
    const dashboard = run(['dashboard']);
    const url = await waitFor(() => /dashboard: (\S+)/.exec(dashboard.out())?.[1], 20_000);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    dashboard.child.kill('SIGTERM');
    expect(await dashboard.exited).toBe(0);
  });

  it('a config error exits 2 naming the file and line', async () => {
    const { configPath, run } = await setup('cli-config');
    await writeFile(configPath, configYaml(searchYaml('one', '{every: soon}')));
    const start = run(['scheduler']);
    expect(await start.exited).toBe(2);
    expect(start.err()).toContain(configPath);
  });
});
