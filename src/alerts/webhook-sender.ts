/**
 * Posts alert payloads with retries and exponential backoff, within one deadline. Never throws and never logs the URL
 * (a Slack webhook URL is a credential); the evaluator calls it off any run's path, so a dead webhook never blocks a
 * run. Redirects are not followed: a 3xx would re-post the payload (and the URL's token) to another address.
 */
import { silentLogger, type Logger } from '../shared/logger.js';
import type { AlertPayload } from './alert-payload.js';

export interface WebhookSenderOptions {
  url: string;
  attempts?: number;
  baseDelayMs?: number;
  /** Per attempt. */
  timeoutMs?: number;
  /** For all attempts and their backoff together. */
  deadlineMs?: number;
  logger?: Logger;
}

export type WebhookSender = (payload: AlertPayload, signal?: AbortSignal) => Promise<boolean>;

/** Longest one delivery may take by default: the alert state's claim must outlast it. */
export const WEBHOOK_DEADLINE_MS = 30_000;

function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

export function createWebhookSender(opts: WebhookSenderOptions): WebhookSender {
  const attempts = opts.attempts ?? 5;
  const baseDelayMs = opts.baseDelayMs ?? 1_000;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const deadlineMs = opts.deadlineMs ?? WEBHOOK_DEADLINE_MS;
  const log = opts.logger ?? silentLogger;
  const validUrl = isHttpUrl(opts.url);
  return async (payload, signal) => {
    if (!validUrl) {
      log.warn({ alert: payload.alert, state: payload.state }, 'alert webhook URL is not an http(s) URL; not sent');
      return false;
    }
    const deadline = AbortSignal.timeout(deadlineMs);
    const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let lastStatus: number | string = 'none';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (stop.aborted) break;
      try {
        const res = await fetch(opts.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(payload),
          redirect: 'manual',
          signal: AbortSignal.any([stop, AbortSignal.timeout(timeoutMs)]),
        });
        await res.body?.cancel();
        if (res.ok) return true;
        lastStatus = res.status;
        // A redirect or a 4xx other than 429 will not get better by retrying now (the next evaluation tries again).
        if (res.status < 500 && res.status !== 429) break;
      } catch (err) {
        lastStatus = (err as { name?: string }).name ?? 'network_error';
      }
      if (attempt < attempts) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, baseDelayMs * 2 ** (attempt - 1));
          stop.addEventListener(
            'abort',
            () => {
              clearTimeout(t);
              resolve();
            },
            { once: true },
          );
        });
      }
    }
    log.warn(
      { alert: payload.alert, state: payload.state, lastStatus },
      'alert webhook failed; the alert stays pending and is sent again on the next evaluation',
    );
    return false;
  };
}
