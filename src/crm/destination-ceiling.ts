import type { DestinationConfig } from '../config/index.js';
import { hubspotRecordsPerSecond } from './hubspot/hubspot-sink.js';

/**
 * Records per second a destination takes at most, known from its config before anything is opened (the sink says
 * the same: `CrmSink.recordsPerSecond`): a HubSpot portal's requests per 10 s, 100 records each; null for
 * Salesforce, whose limit is a daily allowance, not a short window. The plan sizes its split by it.
 */
export function destinationCeiling(destination: DestinationConfig): number | null {
  return destination.type === 'hubspot' ? hubspotRecordsPerSecond(destination.requestsPer10s) : null;
}
