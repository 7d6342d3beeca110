/**
 * Runs walking on one account beat through their source clients (`heartbeat`/`leave`), so each sizes its journeys
 * for its share of the allowance. Two clients on one account and one Redis, a third on another account.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sourceFixture, type SourceFixture } from './source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('runs walking on an account', () => {
  it(
    'each heartbeat counts the runs of its account that beat within their TTL; one that leaves is no longer ' +
      'counted',
    async () => {
      fx = await sourceFixture();
      const other = fx.newClient();
      const elsewhere = fx.newClient({ accountKey: 'another-account' });
      expect(await fx.client.heartbeat('run-a', 10_000)).toBe(1);
      expect(await other.heartbeat('run-b', 10_000)).toBe(2);
      // the same run beating again is still one run
      expect(await fx.client.heartbeat('run-a', 10_000)).toBe(2);
      expect(await elsewhere.heartbeat('run-c', 10_000)).toBe(1);
      await other.leave('run-b');
      expect(await fx.client.heartbeat('run-a', 10_000)).toBe(1);
    },
  );
});
