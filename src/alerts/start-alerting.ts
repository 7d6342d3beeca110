/**
 * The alert evaluator: every `alerts.evaluateEverySeconds` and whenever a run finishes (BullMQ queue events), it
 * reads the run history and the budget ledger, evaluates the rules and posts each state change once. Run it in the
 * scheduler or dashboard role; several evaluators are safe (the state swap in Redis is atomic).
 */
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AlertsConfig, SavedSearch } from '../config/index.js';
import { SYNC_QUEUE } from '../queue/index.js';
import { listRuns } from '../runs/run-history.js';
import { readBudgetStates } from '../source/budget-states.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { duplicateRedis } from '../shared/redis.js';
import { alertPayload, formatFor, type AlertPayload } from './alert-payload.js';
import { evaluateRules, type AlertCondition } from './alert-rules.js';
import { swapAlertState, type ClaimedTransition, type Transition } from './alert-state.js';
import { createWebhookSender, WEBHOOK_DEADLINE_MS, type WebhookSender } from './webhook-sender.js';

/** Runs per search the rules look at (the stale rule looks for the last completed one among them). */
const HISTORY_DEPTH = 50;

/** How long an evaluator holds an undelivered alert: longer than one delivery, so two never send it at once. */
const CLAIM_MS = 2 * WEBHOOK_DEADLINE_MS;

/** Longest `close` waits for the queue listener and an evaluation in flight: shutdown never waits on a dead Redis. */
const CLOSE_WAIT_MS = 2_000;

async function atMost(work: Promise<unknown> | undefined, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work?.catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

export interface AlertingOptions {
  redis: Redis;
  /** Key prefix of run history and the budget ledger (the queue prefix); alert state lives under it too. */
  prefix: string;
  /** The current alerts section, searches and daily credit cap: getters, since SIGHUP swaps the config. */
  alerts: () => AlertsConfig | undefined;
  searches: () => readonly SavedSearch[];
  maxCreditsPerDay?: () => number | undefined;
  /** `source.tokens.reserve` (a getter, like the others). */
  tokenReserve?: () => number | undefined;
  logger?: Logger;
  /** Also evaluate whenever a sync job finishes (BullMQ queue events on their own connection). */
  listenToQueue?: boolean;
  /** Tests: faster retries. */
  sender?: (url: string) => WebhookSender;
}

export interface AlertEvent {
  condition: AlertCondition;
  transition: Transition;
  payload: AlertPayload;
  delivered: boolean;
}

export interface Alerting {
  /** Evaluates now; resolves when this evaluation's webhooks are delivered or given up. */
  evaluate(): Promise<AlertEvent[]>;
  close(): Promise<void>;
}

export function startAlerting(opts: AlertingOptions): Alerting {
  const log = (opts.logger ?? silentLogger).child({ component: 'alerts' });
  const stop = new AbortController();
  let senders: { url: string; send: WebhookSender } | undefined;
  const senderFor = (url: string): WebhookSender => {
    if (senders?.url !== url)
      senders = { url, send: opts.sender ? opts.sender(url) : createWebhookSender({ url, logger: log }) };
    return senders.send;
  };

  // One evaluation at a time per process; calls during one share a single evaluation that starts right after it,
  // so every caller sees the state as of (at least) its call.
  let running: Promise<AlertEvent[]> | undefined;
  let queued: Promise<AlertEvent[]> | undefined;
  const evaluateOnce = async (): Promise<AlertEvent[]> => {
    const rules = opts.alerts();
    if (!rules) return [];
    const now = new Date();
    const searches = opts.searches();
    const [runs, budgets] = await Promise.all([
      Promise.all(
        searches.map(
          async (s) =>
            [s.name, await listRuns(opts.redis, s.name, { prefix: opts.prefix, limit: HISTORY_DEPTH })] as const,
        ),
      ),
      readBudgetStates(opts.redis, opts.prefix),
    ]);
    const conditions = evaluateRules({
      rules,
      searches,
      runs: new Map(runs),
      budgets,
      maxCreditsPerDay: opts.maxCreditsPerDay?.(),
      tokenReserve: opts.tokenReserve?.(),
      now,
    });
    const send = senderFor(rules.webhook.url);
    const format = formatFor(rules.webhook.url, rules.webhook.payload);
    const due: { event: AlertEvent; claim: ClaimedTransition }[] = [];
    for (const condition of conditions) {
      const claim = await swapAlertState(opts.redis, opts.prefix, condition.id, condition.firing, CLAIM_MS);
      if (!claim) continue;
      const { transition } = claim;
      const payload = alertPayload(condition, transition, format, now);
      log.info({ alert: condition.rule, id: condition.id, transition }, 'alert due');
      due.push({ event: { condition, transition, payload, delivered: false }, claim });
    }
    // Pending until a 2xx: an undelivered alert is claimed again by the next evaluation (of any process).
    await Promise.all(
      due.map(async ({ event, claim }) => {
        event.delivered = await send(event.payload, stop.signal);
        await (event.delivered ? claim.delivered() : claim.retryLater());
      }),
    );
    return due.map((d) => d.event);
  };
  const evaluate = (): Promise<AlertEvent[]> => {
    if (!running) {
      running = evaluateOnce().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return evaluate();
      });
    return queued;
  };
  const tick = (): void => {
    void evaluate().catch((err: unknown) =>
      log.warn({ err: { message: (err as Error).message } }, 'alert evaluation failed'),
    );
  };

  const everyMs = (opts.alerts()?.evaluateEverySeconds ?? 60) * 1000;
  const timer = setInterval(tick, everyMs);
  timer.unref();
  let events: QueueEvents | undefined;
  let eventsConnection: Redis | undefined;
  if (opts.listenToQueue && opts.alerts()) {
    // Its own connection, closed with it: QueueEvents blocks on XREAD.
    eventsConnection = duplicateRedis(opts.redis, { maxRetriesPerRequest: null });
    events = new QueueEvents(SYNC_QUEUE, { connection: eventsConnection, prefix: opts.prefix });
    events.on('completed', tick);
    events.on('failed', tick);
    events.on('error', () => undefined);
  }
  tick();
  return {
    evaluate,
    async close() {
      clearInterval(timer);
      stop.abort();
      // Redis unreachable: the listener's close and an evaluation's commands would wait for it to come back.
      const down = opts.redis.status !== 'ready';
      if (down) eventsConnection?.disconnect();
      await atMost(events?.close(), CLOSE_WAIT_MS);
      eventsConnection?.disconnect();
      if (!down) await atMost(running, CLOSE_WAIT_MS);
    },
  };
}
