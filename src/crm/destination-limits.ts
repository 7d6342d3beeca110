import type { Redis } from 'ioredis';
import { listGovernorSnapshots, type GovernorSnapshot } from '../shared/governor-snapshots.js';
import type { DestinationConfig } from './destination-port.js';
import { destinationPort } from './destinations.js';

/**
 * What the runs of every process learned of a destination's limits from its answers (a HubSpot portal's requests
 * per window, a Salesforce org's daily allowance), and when: its governor's snapshots under `prefix`. Empty when
 * its port keeps no governor account or nothing was learned yet.
 */
export async function destinationLimits(
  destination: DestinationConfig,
  redis: Redis,
  prefix: string,
): Promise<GovernorSnapshot[]> {
  const account = destinationPort(destination.type).governorAccount?.(destination);
  if (account === undefined) return [];
  return (await listGovernorSnapshots(redis, prefix)).filter(
    (g) => g.remote === destination.type && g.account === account,
  );
}
