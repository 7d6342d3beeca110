/** Turns a run summary and the emulators' counters into the figures a benchmark prints. */
import type { RunSummary } from '../../src/runs/run-summary.js';
import type { HostStats } from './emulator-host-client.js';
import type { WorkerResult } from './worker-process.js';

export interface Rates {
  limit: number;
  windowSeconds: number;
  /** HubSpot requests per 10 s, when HubSpot is the destination. */
  hubspotPer10s?: number;
}

const WRITE_ROUTES = ['upsert', 'create', 'update', 'associations.create', 'associations.default'];

/** HubSpot requests that change CRM state (object and association writes). */
export function hubspotWrites(s: HostStats): number {
  return WRITE_ROUTES.reduce((n, r) => n + (s.hubspot?.byRoute[r] ?? 0), 0);
}

/**
 * Records/s over the binding ceiling. API: limit × 100 records per window. HubSpot: requestsPer10s per 10 s times the
 * records this run carried per HubSpot request (100 for companies; fewer for persons with their association calls).
 */
export function figures(
  label: string,
  summary: RunSummary,
  worker: WorkerResult,
  stats: HostStats,
  rates: Rates,
): Record<string, unknown> {
  const seconds = worker.wallMs / 1000;
  const perSecond = summary.fetched / seconds;
  const apiCeiling = (rates.limit * 100) / rates.windowSeconds;
  const hs = stats.hubspot;
  const hsRequests = hs?.requests ?? 0;
  const crmCeiling =
    rates.hubspotPer10s !== undefined && hsRequests > 0
      ? (rates.hubspotPer10s / 10) * (summary.fetched / hsRequests)
      : undefined;
  const binding = crmCeiling !== undefined && crmCeiling < apiCeiling ? 'hubspot' : 'api';
  const ceiling = binding === 'hubspot' ? crmCeiling! : apiCeiling;
  return {
    label,
    status: summary.status,
    ...(summary.stopReason ? { stopReason: summary.stopReason } : {}),
    ...(summary.error ? { error: summary.error } : {}),
    ...(summary.warnings ? { warnings: summary.warnings } : {}),
    ...(summary.linkErrors ? { linkErrors: summary.linkErrors } : {}),
    records: summary.fetched,
    created: summary.created,
    updated: summary.updated,
    unchanged: summary.unchanged,
    rejected: summary.rejected,
    wallSeconds: Number(seconds.toFixed(1)),
    runSeconds: Number((summary.durationMs / 1000).toFixed(1)),
    recordsPerSecond: Math.round(perSecond),
    apiCeiling: Math.round(apiCeiling),
    ...(crmCeiling !== undefined ? { hubspotCeiling: Math.round(crmCeiling) } : {}),
    binding,
    ratio: Number((perSecond / ceiling).toFixed(3)),
    partitions: summary.partitions,
    tokensPerRecord: summary.fetched > 0 ? Number((summary.tokensSpent / summary.fetched).toFixed(3)) : null,
    creditsSpent: summary.creditsSpent,
    api: {
      searches: stats.salesIntel.operations.search,
      counts: stats.salesIntel.operations.count,
      peakSearchesPerWindow: stats.salesIntel.peakPerWindow.search,
      peakCountsPerWindow: stats.salesIntel.peakPerWindow.count,
      limit: rates.limit,
      served429:
        stats.salesIntel.served429.search + stats.salesIntel.served429.count + stats.salesIntel.served429.dictionary,
    },
    ...(hs
      ? {
          hubspot: {
            requests: hs.requests,
            byRoute: hs.byRoute,
            writes: hubspotWrites(stats),
            peakPerWindow: hs.peakPerWindow,
            limit: rates.hubspotPer10s,
            served429: hs.throttled.TEN_SECONDLY_ROLLING + hs.throttled.DAILY,
            stored: hs.stored,
          },
        }
      : {}),
    ...(stats.salesforce
      ? {
          salesforce: {
            apiCalls: stats.salesforce.apiUsage,
            requests: stats.salesforce.requests,
            statuses: stats.salesforce.statuses,
            stored: stats.salesforce.stored,
          },
        }
      : {}),
    worker: {
      cpuMs: Math.round(worker.usage.cpuMs),
      cpuMsPer1000: Number((worker.usage.cpuMs / (summary.fetched / 1000)).toFixed(1)),
      maxRssMb: Math.round(worker.usage.maxRssMb),
    },
  };
}
