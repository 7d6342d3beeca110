/** Shared bits of the config tests: fixture paths and the environment the fixtures are written for. */
import { fileURLToPath } from 'node:url';
import { ConfigError, parseConfig } from '../../src/config/index.js';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Secret values the fixtures read from the environment; none of them may ever appear in an error message. */
export const SECRETS = {
  SI_CLIENT_SECRET: 'si-secret-7f3a9c',
  HUBSPOT_TOKEN: 'pat-hub-secret-51d2',
  SF_CLIENT_SECRET: 'sf-secret-c0ffee',
} as const;

export function fixtureEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...SECRETS, ...extra };
}

/** The ConfigError that parsing `text` throws; fails the test if it parses or throws anything else. */
export function parseError(text: string, env: NodeJS.ProcessEnv = fixtureEnv()): ConfigError {
  try {
    parseConfig(text, 'test.yaml', env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
