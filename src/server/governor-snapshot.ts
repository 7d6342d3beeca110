/**
 * Declared here until the remote helper's `src/shared/rate-governor.ts` lands: the same shape as its
 * `GovernorSnapshot` (one per remote, account and operation, read from Redis by `listGovernorSnapshots`). The lead
 * wires `() => listGovernorSnapshots(redis, prefix)` into the dashboard's `governorSnapshots` option.
 * For the CRMs `remote` is `hubspot` or `salesforce` and `account` the destination name.
 */
export interface GovernorSnapshot {
  remote: string;
  account: string;
  operation: string;
  limit: number | null;
  windowMs: number | null;
  mode: 'headers' | 'fallback' | null;
  requests: Record<'2xx' | '4xx' | '5xx' | '429' | 'network', number>;
  waitedSeconds: number;
}

export type GovernorSnapshotSource = () => Promise<GovernorSnapshot[]>;
