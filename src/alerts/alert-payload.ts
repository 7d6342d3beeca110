/**
 * What the webhook receives. Slack format: `{text}` (incoming webhooks show it). JSON format: the same text plus
 * the structured fields. Names, codes and counts only (see alert-rules.ts): never a secret or a contact detail.
 */
import type { AlertCondition } from './alert-rules.js';
import type { Transition } from './alert-state.js';

export type WebhookFormat = 'slack' | 'json';

export interface AlertPayload {
  text: string;
  alert?: AlertCondition['rule'];
  state?: 'firing' | 'resolved';
  subject?: AlertCondition['subject'];
  details?: AlertCondition['details'];
  at?: string;
  source?: 'prospect-sync';
}

export function alertPayload(
  condition: AlertCondition,
  transition: Transition,
  format: WebhookFormat,
  now: Date,
): AlertPayload {
  const text =
    transition === 'fired'
      ? `[prospect-sync] FIRING ${condition.rule}: ${condition.text}`
      : `[prospect-sync] RESOLVED ${condition.rule}: ${condition.id.replace(/^[^:]+:/, '')} is back to normal`;
  if (format === 'slack') return { text };
  return {
    text,
    source: 'prospect-sync',
    alert: condition.rule,
    state: transition === 'fired' ? 'firing' : 'resolved',
    subject: condition.subject,
    details: condition.details,
    at: now.toISOString(),
  };
}

export function formatFor(url: string, format: WebhookFormat | undefined): WebhookFormat {
  if (format) return format;
  try {
    return new URL(url).hostname === 'hooks.slack.com' ? 'slack' : 'json';
  } catch {
    return 'json';
  }
}
