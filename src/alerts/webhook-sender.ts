/**
 * Posts alert payloads with retries and exponential backoff. Never throws and never logs the URL (a Slack webhook
 * URL is a credential); the evaluator calls it off any run's path, so a dead webhook never blocks a run.
 */
import { silentLogger, type Logger } from '../shared/logger.js';
import type { AlertPayload } from './alert-payload.js';

export interface WebhookSenderOptions {
  url: string;
  attempts?: number;
  baseDelayMs?: number;
  timeoutMs?: number;
  logger?: Logger;
}

export type WebhookSender = (payload: AlertPayload, signal?: AbortSignal) => Promise<boolean>;

export function createWebhookSender(opts: WebhookSenderOptions): WebhookSender {
  const attempts = opts.attempts ?? 5;
  const baseDelayMs = opts.baseDelayMs ?? 1_000;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const log = opts.logger ?? silentLogger;
  return async (payload, signal) => {
    let lastStatus: number | string = 'none';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (signal?.aborted) return false;
      try {
        const res = await fetch(opts.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
          signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
        });
        await res.body?.cancel();
        if (res.ok) return true;
        lastStatus = res.status;
        // A 4xx other than 429 will not get better by retrying.
        if (res.status < 500 && res.status !== 429) break;
      } catch (err) {
        lastStatus = (err as { name?: string }).name ?? 'network_error';
      }
      if (attempt < attempts) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, baseDelayMs * 2 ** (attempt - 1));
          signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
        });
      }
    }
    log.warn({ alert: payload.alert, state: payload.state, lastStatus }, 'alert webhook failed; alert dropped');
    return false;
  };
}
