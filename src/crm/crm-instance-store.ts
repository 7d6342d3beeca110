/**
 * The CRM instance (`hubspot:<portalId>`, `salesforce:<orgId>`) each destination's settings last led to, as a run's
 * sink reported it: `after:` compares it with the instance a followed run wrote to, without asking the CRM. The
 * settings are known by their port's governor account (address + credential, hashed), so a destination pointed at
 * another portal/org is unknown until a run opens it.
 */
import type { Redis } from 'ioredis';
import type { DestinationConfig } from './destination-port.js';
import { destinationPort } from './destinations.js';

const key = (prefix: string): string => `${prefix}:crm-instances`;

/** The destination's settings as one hash field: its type and its port's governor account (type alone: none). */
function settingsOf(destination: DestinationConfig): string {
  const account = destinationPort(destination.type).governorAccount?.(destination);
  return account === undefined ? destination.type : `${destination.type}:${account}`;
}

export async function rememberInstance(
  redis: Redis,
  prefix: string,
  destination: DestinationConfig,
  instance: string,
): Promise<void> {
  await redis.hset(key(prefix), settingsOf(destination), instance);
}

/** The instance a run last found behind these settings; null: no run opened them yet. */
export async function knownInstance(
  redis: Redis,
  prefix: string,
  destination: DestinationConfig,
): Promise<string | null> {
  return redis.hget(key(prefix), settingsOf(destination));
}
