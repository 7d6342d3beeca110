import type { DestinationConfig } from '../config/index.js';
import { HUBSPOT_BATCH_SIZE } from './hubspot/hubspot-read.js';

/**
 * The most records per second a destination takes, known from its config before anything is opened: a HubSpot
 * portal's private-app requests per 10 s, 100 records each; null for Salesforce, whose limit is a daily allowance
 * (its share guard), not a short window. An upper bound: reads, links and a learned lower limit only make it slower.
 * The plan sizes its journeys and split by it, the walk its journeys (jobs/sync-search/concurrency.ts).
 */
export function destinationCeiling(destination: DestinationConfig): number | null {
  return destination.type === 'hubspot' ? (destination.requestsPer10s / 10) * HUBSPOT_BATCH_SIZE : null;
}
