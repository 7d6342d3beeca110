/**
 * Child process that serves the emulators a benchmark needs (Sales-Intelligence, HubSpot, Salesforce), so their CPU
 * is not counted against the worker under test. Options: JSON in argv[2] (HostOptions; `salesIntel: null` for a host
 * of CRMs only). Prints one JSON line with the URLs; then answers each stdin line (`stats`, `reset`) with one JSON
 * line; exits when stdin closes.
 */
import { createInterface } from 'node:readline';
import {
  startHubSpotEmulator,
  type HubSpotEmulator,
  type HubSpotEmulatorOptions,
} from '../../src/emulators/hubspot/index.js';
import { startSalesIntelEmulator, type SalesIntelEmulatorOptions } from '../../src/emulators/sales-intel/index.js';
import {
  startSalesforceEmulator,
  type SalesforceEmulator,
  type SalesforceEmulatorOptions,
} from '../../src/emulators/salesforce/index.js';
import type { HostOptions } from './emulator-host-client.js';

const options = JSON.parse(process.argv[2] ?? '{}') as HostOptions;
const si = options.salesIntel
  ? await startSalesIntelEmulator(options.salesIntel as SalesIntelEmulatorOptions)
  : undefined;
const hubspot: HubSpotEmulator | undefined = options.hubspot
  ? await startHubSpotEmulator(options.hubspot as HubSpotEmulatorOptions)
  : undefined;
const salesforce: SalesforceEmulator | undefined = options.salesforce
  ? await startSalesforceEmulator(options.salesforce as unknown as SalesforceEmulatorOptions)
  : undefined;

// HubSpot's window is rolling: after every admitted request, the requests inside the 10 s ending now (read from the
// emulator's own rate-limit headers) is the window's count; its maximum is the peak the bench reports.
let hubspotPeak = 0;
let salesforceUsageBase = 0;
// When each HubSpot route was first and last called (ms since the epoch), recorded as the emulator counts it.
let routeTimes: Record<string, { first: number; last: number }> = {};
function timedRoutes(): Record<string, number> {
  return new Proxy<Record<string, number>>(
    {},
    {
      set(target, route: string, value: number) {
        const now = Date.now();
        const t = routeTimes[route];
        if (t === undefined) routeTimes[route] = { first: now, last: now };
        else t.last = now;
        target[route] = value;
        return true;
      },
    },
  );
}
if (hubspot) hubspot.stats.byRoute = timedRoutes();
if (hubspot) {
  const take = hubspot.limits.take.bind(hubspot.limits);
  hubspot.limits.take = (now: number) => {
    const verdict = take(now);
    const remaining = Number(hubspot.limits.headers(now)['x-hubspot-ratelimit-remaining']);
    hubspotPeak = Math.max(hubspotPeak, hubspot.limits.perWindow - remaining);
    return verdict;
  };
}

function stats(): unknown {
  const cpu = process.cpuUsage();
  return {
    salesIntel: si?.stats(),
    hubspot: hubspot && {
      ...hubspot.stats,
      byRoute: { ...hubspot.stats.byRoute },
      routeTimes,
      peakPerWindow: hubspotPeak,
      stored: { companies: hubspot.state.count('companies'), contacts: hubspot.state.count('contacts') },
      lists: Object.fromEntries([...hubspot.state.lists.byId.values()].map((l) => [l.name, l.members.size])),
    },
    salesforce: salesforce && {
      apiUsage: salesforce.stats.apiUsage - salesforceUsageBase,
      requests: salesforce.stats.requests,
      statuses: salesforce.stats.statuses,
      stored: {
        Account: salesforce.state.all('Account').length,
        Contact: salesforce.state.all('Contact').length,
        linkedContacts: salesforce.state.all('Contact').filter((c) => c.AccountId).length,
      },
    },
    hostCpuMs: (cpu.user + cpu.system) / 1000,
  };
}

function reset(): void {
  si?.resetStats();
  if (hubspot) {
    const s = hubspot.stats;
    Object.assign(s, {
      requests: 0,
      throttled: { TEN_SECONDLY_ROLLING: 0, DAILY: 0 },
      byRoute: timedRoutes(),
      byStatus: {},
      inputs: 0,
    });
    hubspotPeak = 0;
    routeTimes = {};
  }
  if (salesforce) {
    Object.assign(salesforce.stats, { requests: {}, statuses: {}, collectionSizes: [], peakInFlight: {} });
    salesforceUsageBase = salesforce.stats.apiUsage;
  }
}

process.stdout.write(
  `${JSON.stringify({
    salesIntel: si && { url: si.url, tokenUrl: si.tokenUrl },
    hubspot: hubspot?.url,
    salesforce: salesforce?.url,
  })}\n`,
);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'reset') reset();
  process.stdout.write(`${JSON.stringify(stats())}\n`);
});
lines.on('close', () => {
  void Promise.all([si?.close(), hubspot?.close(), salesforce?.close()]).then(() => process.exit(0));
});
