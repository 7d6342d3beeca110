/**
 * What the rate governors did, per remote (`source`, `hubspot`, `salesforce`), account and operation: read from Redis
 * by `listGovernorSnapshots` (src/shared/rate-governor.ts) at scrape time, so the dashboard exports what workers did.
 */
import type { GovernorSnapshot } from '../shared/governor-snapshots.js';

export type { GovernorSnapshot };
export type GovernorSnapshotSource = () => Promise<GovernorSnapshot[]>;
