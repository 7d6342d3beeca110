/**
 * A HubSpot answer and its booking with the portal's governor (src/crm/hubspot/hubspot-call-policy.ts): a 2xx
 * stands when Redis refuses to book it, so what HubSpot took is returned once and never sent again.
 */
import { describe, expect, it } from 'vitest';
import { callHubSpot, DEFAULT_RETRY } from '../../../src/crm/hubspot/hubspot-call-policy.js';
import type { RateGovernor } from '../../../src/shared/rate-governor.js';

/** A governor that grants every call and whose Redis refuses every write (out of memory). */
function fullGovernor(): { governor: RateGovernor; settles: () => number } {
  let settles = 0;
  const refuse = async (): Promise<never> => {
    settles += 1;
    throw new Error('OOM command not allowed when used memory > maxmemory');
  };
  const governor = {
    acquire: async () => 'grant',
    settle: refuse,
    close: refuse,
    block: refuse,
    current: async () => null,
  } as unknown as RateGovernor;
  return { governor, settles: () => settles };
}

describe('HubSpot answers and their booking', () => {
  it('a 2xx whose booking Redis refuses is returned, and the call is not sent again', async () => {
    const { governor, settles } = fullGovernor();
    let sent = 0;
    const data = await callHubSpot(
      governor,
      async () => {
        sent += 1;
        return { data: 'taken', headers: {} };
      },
      { ...DEFAULT_RETRY, baseDelayMs: 1, maxDelayMs: 1, boundPer10s: undefined },
    );
    expect([data, sent, settles()]).toEqual(['taken', 1, 1]);
  });
});
