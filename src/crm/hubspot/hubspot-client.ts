import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Client } from '@hubspot/api-client';

/**
 * The real `@hubspot/api-client` with its own retry and limiter OFF: ours (hubspot-call-policy and the portal's Redis
 * governor) read the rate headers. API groups are created lazily from a process-wide decorator singleton, so they are
 * touched right here, before any other Client could change those decorators.
 */
export function createHubSpotClient(accessToken: string, baseUrl: string): { client: Client; close: () => void } {
  const basePath = baseUrl.replace(/\/+$/, '');
  const httpAgent = basePath.startsWith('https:')
    ? new HttpsAgent({ keepAlive: true })
    : new HttpAgent({ keepAlive: true });
  const client = new Client({ accessToken, basePath, httpAgent });
  void client.crm.objects.batchApi;
  void client.crm.properties.coreApi;
  void client.crm.associations.v4.batchApi;
  return { client, close: () => httpAgent.destroy() };
}
