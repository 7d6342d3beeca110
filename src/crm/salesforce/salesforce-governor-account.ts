import { createHash } from 'node:crypto';

/** The org's label in the shared rate governor (remote `salesforce`): a short hash of its login URL and client id. */
export function salesforceGovernorAccount(loginUrl: string, clientId: string): string {
  return createHash('sha256').update(`${loginUrl}\n${clientId}`).digest('hex').slice(0, 12);
}
