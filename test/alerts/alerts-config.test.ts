import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { COMPANY_SEARCH, hubspotConfig } from '../jobs/sync-fixture.js';

const ENV = {
  SI_BASE_URL: 'http://127.0.0.1:9',
  SI_TOKEN_URL: 'http://127.0.0.1:9/oauth/token',
  SI_CLIENT_ID: 'c',
  SI_CLIENT_SECRET: 's',
  HUBSPOT_BASE_URL: 'http://127.0.0.1:9',
  HUBSPOT_TOKEN: 't',
  ALERT_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X',
};
const withAlerts = (alerts: string): string => `${hubspotConfig(COMPANY_SEARCH)}\nalerts:\n${alerts}\n`;

describe('alerts config', () => {
  it('is optional; with a webhook the defaults apply', () => {
    expect(parseConfig(hubspotConfig(COMPANY_SEARCH), 'a.yaml', ENV).config.alerts).toBeUndefined();
    const { alerts } = parseConfig(
      withAlerts('  webhook: {url: "${ALERT_WEBHOOK_URL}"}\n  rejectsShareAbove: 0.05'),
      'a.yaml',
      ENV,
    ).config;
    expect(alerts).toEqual({
      webhook: { url: ENV.ALERT_WEBHOOK_URL },
      evaluateEverySeconds: 60,
      runFailed: true,
      rejectsShareAbove: 0.05,
    });
  });

  it('names the bad field and line', () => {
    expect(() =>
      parseConfig(withAlerts('  webhook: {url: "${ALERT_WEBHOOK_URL}"}\n  rejectsShareAbove: 5'), 'a.yaml', ENV),
    ).toThrow(/alerts\.rejectsShareAbove/);
    expect(() =>
      parseConfig(withAlerts('  webhook: {url: "${ALERT_WEBHOOK_URL}", payload: xml}'), 'a.yaml', ENV),
    ).toThrow(/alerts\.webhook\.payload/);
    expect(() => parseConfig(withAlerts('  tokensBelow: 10'), 'a.yaml', ENV)).toThrow(/alerts\.webhook/);
  });

  it('the webhook URL is a secret: only from the environment (or *_FILE), never written in the file', () => {
    const literal = () =>
      parseConfig(withAlerts('  webhook: {url: "https://hooks.slack.com/services/T0/B0/LITERALTOKEN"}'), 'a.yaml', ENV);
    expect(literal).toThrow(/alerts\.webhook\.url: secrets come only from the environment/);
    try {
      literal();
    } catch (err) {
      expect(String((err as Error).message)).not.toContain('LITERALTOKEN');
    }
    const dir = mkdtempSync(join(tmpdir(), 'ps-alert-url-'));
    const file = join(dir, 'url');
    writeFileSync(file, `${ENV.ALERT_WEBHOOK_URL}\n`);
    const { ALERT_WEBHOOK_URL: _unset, ...rest } = ENV;
    const { alerts } = parseConfig(withAlerts('  webhook: {url: "${ALERT_WEBHOOK_URL}"}'), 'a.yaml', {
      ...rest,
      ALERT_WEBHOOK_URL_FILE: file,
    }).config;
    expect(alerts?.webhook.url).toBe(ENV.ALERT_WEBHOOK_URL);
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/hook', 'javascript:alert(1)', 'not a url'])(
    'refuses the webhook URL %j (http(s) only)',
    (url) => {
      const load = () =>
        parseConfig(withAlerts('  webhook: {url: "${ALERT_WEBHOOK_URL}"}'), 'a.yaml', {
          ...ENV,
          ALERT_WEBHOOK_URL: url,
        });
      expect(load).toThrow(/alerts\.webhook\.url: expected an http\(s\) URL/);
    },
  );
});
