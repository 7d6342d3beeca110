/** Public surface of the dashboard server. */
export {
  startDashboardServer,
  DashboardAuthError,
  type DashboardOptions,
  type DashboardServer,
} from './dashboard-server.js';
export { basicAuth, type BasicCredentials } from './basic-auth.js';
export { createMetricsEndpoint, type MetricsEndpoint, type MetricsOptions } from './metrics-registry.js';
export type { GovernorSnapshot, GovernorSnapshotSource } from './governor-snapshot.js';
