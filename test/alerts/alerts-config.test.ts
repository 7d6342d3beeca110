import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { COMPANY_SEARCH, hubspotConfig } from '../jobs/sync-fixture.js';

const ENV = {
  SI_BASE_URL: 'http://127.0.0.1:9', SI_TOKEN_URL: 'http://127.0.0.1:9/oauth/token', SI_CLIENT_ID: 'c', SI_CLIENT_SECRET: 's',
  HUBSPOT_BASE_URL: 'http://127.0.0.1:9', HUBSPOT_TOKEN: 't', ALERT_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X',
};
const withAlerts = (alerts: string): string => `${hubspotConfig(COMPANY_SEARCH)}\nalerts:\n${alerts}\n`;

describe('alerts config', () => {
  it('is optional; with a webhook the defaults apply', () => {
    expect(parseConfig(hubspotConfig(COMPANY_SEARCH), 'a.yaml', ENV).config.alerts).toBeUndefined();
    const { alerts } = parseConfig(withAlerts('  webhook: {url: "${ALERT_WEBHOOK_URL}"}\n  rejectsShareAbove: 0.05'), 'a.yaml', ENV).config;
    expect(alerts).toEqual({ webhook: { url: ENV.ALERT_WEBHOOK_URL }, evaluateEverySeconds: 60, runFailed: true, rejectsShareAbove: 0.05 });
  });

  it('names the bad field and line', () => {
    expect(() => parseConfig(withAlerts('  webhook: {url: "${ALERT_WEBHOOK_URL}"}\n  rejectsShareAbove: 5'), 'a.yaml', ENV)).toThrow(/alerts\.rejectsShareAbove/);
    expect(() => parseConfig(withAlerts('  webhook: {url: "${ALERT_WEBHOOK_URL}", payload: xml}'), 'a.yaml', ENV)).toThrow(/alerts\.webhook\.payload/);
    expect(() => parseConfig(withAlerts('  tokensBelow: 10'), 'a.yaml', ENV)).toThrow(/alerts\.webhook/);
  });
});
