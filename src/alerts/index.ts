/** Public surface of the alerts (webhook on state changes of the run history and budget). */
export { startAlerting, type Alerting, type AlertingOptions, type AlertEvent } from './start-alerting.js';
export { evaluateRules, type AlertCondition, type AlertRule } from './alert-rules.js';
export { alertPayload, type AlertPayload, type WebhookFormat } from './alert-payload.js';
export { createWebhookSender, type WebhookSender } from './webhook-sender.js';
