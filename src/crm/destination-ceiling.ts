import type { DestinationConfig } from './destination-port.js';
import { destinationPort } from './destinations.js';

/**
 * The most records per second a destination takes, known from its config before anything is opened (its port's
 * `ceiling`, e.g. a CRM's requests per short window times its batch size); null when its limit is no short window.
 * An upper bound: reads, links and a learned lower limit only make it slower. The plan sizes its journeys and split
 * by it, the walk its journeys (jobs/sync-search/pacing/journey-controller.ts).
 */
export function destinationCeiling(destination: DestinationConfig): number | null {
  return destinationPort(destination.type).ceiling?.(destination) ?? null;
}
