/** Public surface of the dashboard server. */
export { startDashboardServer, DashboardAuthError, type DashboardOptions, type DashboardServer } from './dashboard-server.js';
export { basicAuth, type BasicCredentials } from './basic-auth.js';
export { mergePrometheusText } from './prometheus-text.js';
