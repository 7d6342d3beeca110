/**
 * Vitest setup (vitest.config.ts `setupFiles`): in the e2e and jobs tests, every request sent to a HubSpot emulator
 * and every answer it gives are checked against HubSpot's published specs (hubspot-contract.ts); a test during which
 * one does not conform fails, naming the operation and what the spec refuses.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { onHubSpotExchange } from '../../src/emulators/hubspot/index.js';
import { checkExchange, loadContracts, type ContractViolation } from './hubspot-contract.js';

const CHECKED = /[\\/]test[\\/](e2e|jobs)[\\/]/;

let violations: ContractViolation[] = [];
let stop: (() => void) | undefined;

// Vitest requires a destructured context as the first argument; the suite is the second.
// eslint-disable-next-line no-empty-pattern
beforeAll(({}, suite) => {
  const file = suite.file.filepath;
  if (!CHECKED.test(file)) return;
  loadContracts();
  stop = onHubSpotExchange((exchange) => violations.push(...checkExchange(exchange)));
});

afterEach(() => {
  const found = violations;
  violations = [];
  expect(found, 'HubSpot exchanges that break the published spec (test/contracts/)').toEqual([]);
});

afterAll(() => {
  stop?.();
  stop = undefined;
});
