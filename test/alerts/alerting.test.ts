/**
 * Alerts end to end: run summaries recorded through the real run history, budget state through the real ledger,
 * a local HTTP receiver standing for the webhook. Each state change arrives exactly once (also with two evaluators
 * racing), recovery once, nothing per run; payloads carry no secret; a dead webhook is retried and given up.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startAlerting, type AlertPayload } from '../../src/alerts/index.js';
import { createWebhookSender } from '../../src/alerts/webhook-sender.js';
import type { AlertsConfig, SavedSearch } from '../../src/config/index.js';
import { recordRun } from '../../src/runs/run-history.js';
import { emptyCounts, type RunSummary } from '../../src/runs/run-summary.js';
import { RedisBudgetLedger } from '../../src/source/budget-ledger.js';
import { enqueueRun, openQueues, startSyncWorker } from '../../src/queue/index.js';
import { createRedis } from '../../src/shared/redis.js';
import { silentLogger } from '../../src/shared/logger.js';
import { closeAfterEach } from '../helpers/closers.js';
import { testRedis } from '../helpers/redis.js';

interface Receiver {
  url: string;
  bodies: AlertPayload[];
  hits: number;
  status: number;
  headers: Record<string, string>;
  close(): Promise<void>;
}

async function receiver(): Promise<Receiver> {
  const r = { bodies: [] as AlertPayload[], hits: 0, status: 200, headers: {} } as Receiver;
  const read = async (req: IncomingMessage): Promise<string> => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    return body;
  };
  const server: Server = createServer((req, res) => {
    void read(req).then((body) => {
      r.hits++;
      if (r.status === 200) r.bodies.push(JSON.parse(body) as AlertPayload);
      res.writeHead(r.status, r.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/T0SECRET/B0TOKEN`;
  r.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}

const SEARCH = { name: 'dach', destination: 'crm', schedule: { every: '1h' } } as SavedSearch;

function summary(status: RunSummary['status'], runId: string, extra: Partial<RunSummary> = {}): RunSummary {
  const at = new Date().toISOString();
  return {
    search: 'dach',
    status,
    ...emptyCounts(),
    fetched: 100,
    unique: 100,
    durationMs: 1000,
    runId,
    startedAt: at,
    finishedAt: at,
    dryRun: false,
    partitions: 1,
    ...extra,
  };
}

describe('alerting', () => {
  const closers = closeAfterEach();

  async function setup(rules: Partial<AlertsConfig>) {
    const { redis, prefix, cleanup } = await testRedis('alerts');
    closers.push(cleanup);
    const hook = await receiver();
    closers.push(() => hook.close());
    const alerts: AlertsConfig = {
      webhook: { url: hook.url, payload: 'json' },
      evaluateEverySeconds: 3600,
      runFailed: true,
      ...rules,
    };
    const start = (listenToQueue = false) => {
      const a = startAlerting({
        redis,
        prefix,
        alerts: () => alerts,
        searches: () => [SEARCH],
        maxCreditsPerDay: () => 50,
        listenToQueue,
        sender: (url) => createWebhookSender({ url, attempts: 3, baseDelayMs: 10 }),
      });
      closers.push(() => a.close());
      return a;
    };
    return { redis, prefix, hook, start };
  }

  it('a failed run fires once (two evaluators racing), repeated failures say nothing, recovery once', async () => {
    const { redis, prefix, hook, start } = await setup({});
    const a = start();
    const b = start();
    await recordRun(redis, summary('completed', 'r1'), { prefix });
    await Promise.all([a.evaluate(), b.evaluate()]);
    expect(hook.bodies).toEqual([]); // fine from the start: nothing to say

    await recordRun(
      redis,
      summary('failed', 'r2', { error: { code: 'crm_auth', message: 'HubSpot refused the token' } }),
      { prefix },
    );
    await Promise.all([a.evaluate(), b.evaluate(), a.evaluate(), b.evaluate()]);
    await recordRun(redis, summary('failed', 'r3', { error: { code: 'crm_auth', message: 'again' } }), { prefix });
    await Promise.all([a.evaluate(), b.evaluate()]);
    expect(hook.bodies).toHaveLength(1);
    expect(hook.bodies[0]).toMatchObject({
      alert: 'run_failed',
      state: 'firing',
      subject: { search: 'dach' },
      details: { errorCode: 'crm_auth', status: 'failed' },
    });
    expect(hook.bodies[0]!.text).toContain('run of dach failed (crm_auth)');

    await recordRun(redis, summary('completed', 'r4'), { prefix });
    await Promise.all([a.evaluate(), b.evaluate()]);
    await Promise.all([a.evaluate(), b.evaluate()]);
    expect(hook.bodies.map((p) => [p.alert, p.state])).toEqual([
      ['run_failed', 'firing'],
      ['run_failed', 'resolved'],
    ]);
    // The webhook URL's token never appears in what we send.
    expect(JSON.stringify(hook.bodies)).not.toMatch(/T0SECRET|B0TOKEN/);
  });

  it('warnings above a threshold, rejects above a share, and a stale search', async () => {
    const { redis, prefix, hook, start } = await setup({
      runFailed: false,
      warningsAbove: 5,
      rejectsShareAbove: 0.1,
      staleAfterPeriods: 2,
    });
    const a = start();
    // 5 warnings: not above
    await recordRun(redis, summary('completed', 'r1', { rejected: 3, linkErrors: 2 }), { prefix });
    await a.evaluate();
    expect(hook.bodies).toEqual([]);
    await recordRun(
      redis,
      summary('completed', 'r2', { rejected: 20, linkErrors: 2, warnings: { count: 22, first: ['x'] } }),
      { prefix },
    );
    await a.evaluate();
    await a.evaluate();
    expect(hook.bodies.map((p) => [p.alert, p.state]).sort()).toEqual([
      ['rejects_share', 'firing'],
      ['run_warnings', 'firing'],
    ]);
    expect(hook.bodies.find((p) => p.alert === 'run_warnings')?.details).toMatchObject({ warnings: 22, threshold: 5 });

    // Last completed run 3 h ago with an hourly schedule and a failed one since: stale (> 2 periods).
    hook.bodies.length = 0;
    const old = new Date(Date.now() - 3 * 3600_000).toISOString();
    await redis.del(`${prefix}:run:dach:history`);
    await recordRun(redis, summary('completed', 'old', { startedAt: old, finishedAt: old }), { prefix });
    await recordRun(redis, summary('failed', 'r3'), { prefix });
    await a.evaluate();
    expect(hook.bodies.map((p) => [p.alert, p.state]).sort()).toEqual([
      ['rejects_share', 'resolved'],
      ['run_warnings', 'resolved'],
      ['search_stale', 'firing'],
    ]);
  });

  it('token balance and credits left today below their thresholds, from the budget ledger', async () => {
    const { redis, prefix, hook, start } = await setup({
      runFailed: false,
      tokensBelow: 1000,
      creditsLeftTodayBelow: 10,
    });
    const ledger = new RedisBudgetLedger(redis, `${prefix}:source:acct1`, 0, { maxPerDay: 50 });
    await ledger.observeTokens({
      'x-rate-results-limit': '100000',
      'x-rate-results-limit-remaining': '5000',
      'x-rate-results-limit-reset': '3600',
    });
    const a = start();
    await a.evaluate();
    expect(hook.bodies).toEqual([]);
    await ledger.observeTokens({
      'x-rate-results-limit': '100000',
      'x-rate-results-limit-remaining': '900',
      'x-rate-results-limit-reset': '3600',
    });
    const { id } = await ledger.reserveCredits('run-1', 45);
    await ledger.settleCredits('run-1', id, 45);
    await a.evaluate();
    await a.evaluate();
    expect(hook.bodies.map((p) => [p.alert, p.state, p.subject]).sort()).toEqual([
      ['credits_low', 'firing', { account: 'acct1' }],
      ['tokens_low', 'firing', { account: 'acct1' }],
    ]);
    expect(hook.bodies.find((p) => p.alert === 'credits_low')?.details).toMatchObject({
      left: 5,
      spentToday: 45,
      maxPerDay: 50,
    });
  });

  it(
    'projected exhaustion before the reset: fires once at the pace of recent runs, resolves when the pace ' + 'drops',
    async () => {
      const { redis, prefix, hook, start } = await setup({ runFailed: false, tokensExhaustBeforeReset: true });
      const ledger = new RedisBudgetLedger(redis, `${prefix}:source:acct1`, 0, {});
      // 5,000 tokens left for 10 h of an hourly search.
      await ledger.observeTokens({
        'x-rate-results-limit': '100000',
        'x-rate-results-limit-remaining': '5000',
        'x-rate-results-limit-reset': '36000',
      });
      await recordRun(redis, summary('completed', 'r1', { tokensSpent: 100 }), { prefix });
      const a = start();
      await a.evaluate();
      expect(hook.bodies).toEqual([]); // 100 a run: about 1,000 until the reset

      for (const id of ['r2', 'r3', 'r4', 'r5'])
        await recordRun(redis, summary('completed', id, { tokensSpent: 1225 }), { prefix });
      const H = 3_600_000;
      const sixthRun = new Date(Math.floor(Date.now() / H) * H + 6 * H).toISOString();
      await a.evaluate();
      await a.evaluate();
      // (100 + 4 x 1,225) / 5 = 1,000 a run: the sixth run from now needs more than the 5,000 left.
      expect(hook.bodies.map((p) => [p.alert, p.state, p.subject])).toEqual([
        ['tokens_exhaust_before_reset', 'firing', { account: 'acct1' }],
      ]);
      expect(hook.bodies[0]?.details).toMatchObject({
        exhaustedBy: 'dach',
        exhaustsAt: sixthRun,
        remaining: 5000,
        limit: 100000,
      });

      for (const id of ['r6', 'r7', 'r8', 'r9', 'r10'])
        await recordRun(redis, summary('completed', id, { tokensSpent: 100 }), { prefix });
      await a.evaluate();
      await a.evaluate();
      expect(hook.bodies.map((p) => [p.alert, p.state])).toEqual([
        ['tokens_exhaust_before_reset', 'firing'],
        ['tokens_exhaust_before_reset', 'resolved'],
      ]);
    },
  );

  it('slack format is {text}; a dead webhook is retried with backoff, then given up without throwing', async () => {
    const { redis, prefix, hook, start } = await setup({});
    hook.status = 500;
    const a = start();
    await recordRun(redis, summary('failed', 'r1', { error: { code: 'x', message: 'y' } }), { prefix });
    const events = await a.evaluate();
    expect(events.map((e) => [e.condition.rule, e.delivered])).toEqual([['run_failed', false]]);
    expect(hook.hits).toBe(3);

    const slack = createWebhookSender({ url: hook.url, attempts: 1 });
    hook.status = 200;
    const { alertPayload } = await import('../../src/alerts/index.js');
    expect(await slack(alertPayload(events[0]!.condition, 'fired', 'slack', new Date()))).toBe(true);
    expect(Object.keys(hook.bodies[0]!)).toEqual(['text']);

    const closed = createWebhookSender({ url: 'http://127.0.0.1:9/hook', attempts: 2, baseDelayMs: 5 });
    expect(await closed({ text: 'x' })).toBe(false);
  });

  it('an alert stays pending until a 2xx: a webhook that fails, then recovers, receives it once', async () => {
    const { redis, prefix, hook, start } = await setup({});
    const a = start();
    const b = start();
    hook.status = 500;
    await recordRun(redis, summary('failed', 'r1', { error: { code: 'crm_auth', message: 'x' } }), { prefix });
    expect((await a.evaluate()).map((e) => e.delivered)).toEqual([false]);
    expect(hook.hits).toBe(3);
    hook.status = 200;
    await Promise.all([a.evaluate(), b.evaluate()]);
    await Promise.all([a.evaluate(), b.evaluate()]);
    expect(hook.bodies.map((p) => [p.alert, p.state])).toEqual([['run_failed', 'firing']]);

    // Fired, then recovered while the webhook was down: the recovery is delivered once the webhook is back.
    hook.status = 503;
    await recordRun(redis, summary('completed', 'r2'), { prefix });
    await a.evaluate();
    hook.status = 200;
    await a.evaluate();
    await b.evaluate();
    expect(hook.bodies.map((p) => [p.alert, p.state])).toEqual([
      ['run_failed', 'firing'],
      ['run_failed', 'resolved'],
    ]);
  });

  it(
    'does not follow a redirect: the payload never reaches the other address, and the alert stays ' + 'pending',
    async () => {
      const { redis, prefix, hook, start } = await setup({});
      const elsewhere = await receiver();
      closers.push(() => elsewhere.close());
      hook.status = 307;
      hook.headers = { location: elsewhere.url };
      const a = start();
      await recordRun(redis, summary('failed', 'r1', { error: { code: 'x', message: 'y' } }), { prefix });
      expect((await a.evaluate()).map((e) => e.delivered)).toEqual([false]);
      expect(elsewhere.hits).toBe(0);
      expect(hook.hits).toBe(1); // a 3xx is not retried at once...
      hook.status = 200;
      hook.headers = {};
      await a.evaluate(); // ...but on the next evaluation
      expect(hook.bodies.map((p) => [p.alert, p.state])).toEqual([['run_failed', 'firing']]);
      expect(elsewhere.hits).toBe(0);
    },
  );

  it(
    'one delivery ends at its deadline, whatever the attempts and timeouts: a webhook that never ' + 'answers',
    async () => {
      const silent: Server = createServer(() => undefined); // accepts, reads, never answers
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      closers.push(
        () =>
          new Promise<void>((resolve) => {
            silent.closeAllConnections();
            silent.close(() => resolve());
          }),
      );
      const send = createWebhookSender({
        url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`,
        attempts: 5,
        timeoutMs: 10_000,
        deadlineMs: 1_000,
      });
      const started = Date.now();
      expect(await send({ text: 'x' })).toBe(false);
      expect(Date.now() - started).toBeLessThan(5_000);
    },
    20_000,
  );

  it('evaluates when a sync job finishes (BullMQ queue events), not only on the interval', async () => {
    const { redis, prefix, hook, start } = await setup({});
    const connection = createRedis(process.env.REDIS_URL);
    closers.push(async () => connection.disconnect());
    const queues = openQueues({ connection, prefix });
    closers.push(() => queues.close());
    const worker = startSyncWorker({
      ctx: { connection, prefix },
      logger: silentLogger,
      processor: async (job) => ({ search: job.data.search, status: 'completed' }),
    });
    closers.push(() => worker.shutdown(5_000));
    start(true); // interval: an hour; its first evaluation sees nothing
    await new Promise((r) => setTimeout(r, 200));
    await recordRun(redis, summary('failed', 'r1', { error: { code: 'crm_auth', message: 'x' } }), { prefix });
    // The listener may still be connecting: finish jobs until one of them triggered the evaluation.
    for (let i = 0; i < 20 && hook.bodies.length === 0; i++) {
      await enqueueRun(queues.sync, `s${i}`, 'manual');
      const until = Date.now() + 1_000;
      while (Date.now() < until && hook.bodies.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(hook.bodies.map((p) => [p.alert, p.state])).toEqual([['run_failed', 'firing']]);
  }, 40_000);
});
