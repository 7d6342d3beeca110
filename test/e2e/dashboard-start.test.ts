import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startAllEmulators } from '../../src/emulators/start-all.js';
import { openQueues } from '../../src/queue/index.js';
import { cli, type CliChild } from '../queue/cli-process.js';
import { queueEnv, waitFor } from '../queue/queue-env.js';
import { closeAfterEach } from '../helpers/closers.js';

const CONFIG = `source:
  baseUrl: \${SI_BASE_URL}
  auth:
    tokenUrl: \${SI_TOKEN_URL}
    clientId: \${SI_CLIENT_ID}
    clientSecret: \${SI_CLIENT_SECRET}
destinations:
  crm:
    type: hubspot
    accessToken: \${HUBSPOT_TOKEN}
    baseUrl: \${HUBSPOT_BASE_URL}
server:
  port: 0
  auth: {username: ops, password: "\${DASHBOARD_PASSWORD}"}
  adminActions: true
searches:
  - name: software
    segment: icp
    entity: companies
    filter: {company: {industry: {include: [software]}}}
    schedule: {cron: "0 6 * * *", timezone: Europe/Berlin}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name, domain: domain}
`;

describe('prospect-sync start, end to end', () => {
  const closers = closeAfterEach();

  it(
    'start + trigger: the run lands in the HubSpot emulator, its summary shows on the dashboard, SIGTERM exits ' + '0',
    async () => {
      const env = await queueEnv('start-e2e');
      closers.push(env.cleanup);
      const emulators = await startAllEmulators({
        ports: { salesIntel: 0, hubspot: 0, salesforce: 0 },
        salesIntel: { companies: 400, persons: 10 },
      });
      closers.push(emulators.close);
      const dir = await mkdtemp(join(tmpdir(), 'ps-start-e2e-'));
      closers.push(() => rm(dir, { recursive: true, force: true }));
      const configPath = join(dir, 'prospect-sync.yaml');
      await writeFile(configPath, CONFIG);
      const childEnv = {
        ...emulators.env,
        DASHBOARD_PASSWORD: 'e2e-pass',
        DASHBOARD_READ_ONLY: 'prospect-sync',
        METRICS_AUTH: 'true',
        QUEUE_PREFIX: env.ctx.prefix,
        PROSPECT_SYNC_CONFIG: configPath,
      };
      const spawned: CliChild[] = [];
      closers.push(async () => {
        for (const c of spawned) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
      });
      const run = (args: string[]): CliChild => {
        const c = cli(args, childEnv);
        spawned.push(c);
        return c;
      };

      const start = run(['start']);
      const url = await waitFor(() => /dashboard: (\S+)/.exec(start.out())?.[1], 30_000);
      const trigger = run(['trigger', 'software', '--json']);
      expect(await trigger.exited, trigger.err()).toBe(0);
      const { jobId } = JSON.parse(trigger.out().trim().split('\n').pop() ?? '') as { jobId: string };

      // The run's final state (retries included), then its summary as the job's return value and on the dashboard.
      const queues = openQueues(env.ctx);
      closers.push(queues.close);
      const state = await waitFor(async () => {
        const s = await queues.sync.getJobState(jobId);
        return s === 'completed' || s === 'failed' ? s : undefined;
      }, 90_000);
      const job = await queues.sync.getJob(jobId);
      expect(state, `${JSON.stringify(job?.failedReason)}\n${start.out()}`).toBe('completed');
      const summary = job?.returnvalue as unknown as { status: string; created: number; runId: string };
      expect(summary.status).toBe('completed');
      expect(summary.created).toBeGreaterThan(0);
      expect(emulators.hubspot.state.table('companies').objects.size).toBe(summary.created);

      const headers = { authorization: `Basic ${Buffer.from('ops:e2e-pass').toString('base64')}` };
      const body = (await (await fetch(`${url}/runs/software`, { headers })).json()) as {
        runs: { runId: string; status: string }[];
      };
      expect(body.runs[0]).toMatchObject({ runId: summary.runId, status: 'completed' });

      // Env switches: /metrics behind auth, the runs queue read-only on the board.
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      const metrics = await (await fetch(`${url}/metrics`, { headers })).text();
      expect(metrics).toContain('bullmq_job_count{queue="prospect-sync",state="completed"} 1');
      // What the worker did, exported by the process's dashboard from Redis.
      expect(metrics).toMatch(
        new RegExp(
          `^prospect_sync_records_created_total\\{search="software",destination="[^"]+"\\} ${summary.created}$`,
          'm',
        ),
      );
      // Ready: Redis answers and the API's health probe (source.baseUrl + paths.health) answers.
      expect(await (await fetch(`${url}/readyz`)).json()).toMatchObject({
        status: 'ready',
        checks: { redis: 'up', api: 'up' },
      });
      const board = (await (await fetch(`${url}/admin/queues/api/queues`, { headers })).json()) as {
        queues: { name: string; readOnlyMode: boolean }[];
      };
      expect(Object.fromEntries(board.queues.map((q) => [q.name, q.readOnlyMode]))).toEqual({
        'prospect-sync': true,
        'prospect-sync-ticks': false,
      });

      start.child.kill('SIGTERM');
      expect(await start.exited).toBe(0);
    },
  );
});
