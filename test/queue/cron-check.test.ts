/**
 * Cron patterns are judged by cron-parser, declared as our own dependency at the version BullMQ evaluates patterns
 * with, and loaded normally: a pattern the config accepts is one the scheduler can run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig, ConfigError } from '../../src/config/index.js';
import { cronProblem } from '../../src/config/schedule.js';
import { configYaml, searchYaml } from './cli-config.js';

const json = (file: string): { version?: string; dependencies?: Record<string, string> } =>
  JSON.parse(readFileSync(file, 'utf8')) as never;

describe('cron check', () => {
  it('cron-parser is a declared dependency pinned to the version bullmq uses', () => {
    const ours = json('package.json').dependencies?.['cron-parser'];
    expect(ours).toBe(json('node_modules/bullmq/package.json').dependencies?.['cron-parser']);
    expect(json('node_modules/cron-parser/package.json').version).toBe(ours);
  });

  it("names the bad field's value and range", () => {
    expect(cronProblem('0 25 * * *')).toBe('invalid cron pattern: Constraint error, got value 25 expected range 0-23');
    expect(cronProblem('61 * * * *')).toBe('invalid cron pattern: Constraint error, got value 61 expected range 0-59');
    expect(cronProblem('0 6 * *')).toBe('expected 5 or 6 cron fields, got 4');
    expect(cronProblem('0 6 * * 1-5')).toBeUndefined();
    expect(cronProblem('*/10 * * * * *')).toBeUndefined();
  });

  it('a config with a bad cron fails to load with file:line and the reason', () => {
    const yaml = configYaml(searchYaml('nightly', '{cron: "0 6 31 2 8"}'));
    const error = (() => {
      try {
        parseConfig(yaml, 'c.yaml', { SI_CLIENT_SECRET: 's', HUBSPOT_TOKEN: 't' });
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      new RegExp(
        String.raw`c\.yaml:\d+:\d+ searches\[0\]\.schedule\.cron: invalid cron pattern: Constraint error, got ` +
          String.raw`value 8 expected range 0-7`,
      ),
    );
  });
});
