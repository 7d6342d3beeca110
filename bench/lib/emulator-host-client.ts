/** Parent side of bench/lib/emulator-host.ts: starts the host process, reads its stats, stops it. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { EmulatorStats } from '../../src/emulators/sales-intel/types.js';

/** JSON-serialisable emulator options (see each emulator's options type). */
export interface HostOptions {
  /** null: a host of CRMs only (startSplitEmulatorHosts). */
  salesIntel: Record<string, unknown> | null;
  hubspot?: Record<string, unknown>;
  salesforce?: Record<string, unknown>;
}

export interface HostStats {
  salesIntel: EmulatorStats;
  hubspot?: {
    requests: number;
    throttled: { TEN_SECONDLY_ROLLING: number; DAILY: number };
    byRoute: Record<string, number>;
    byStatus: Record<string, number>;
    inputs: number;
    peakPerWindow: number;
    stored: { companies: number; contacts: number };
    /** When each route was first and last called (ms since the epoch) since the last reset. */
    routeTimes: Record<string, { first: number; last: number }>;
    /** Members per list, by list name. */
    lists: Record<string, number>;
  };
  salesforce?: {
    apiUsage: number;
    requests: Record<string, number>;
    statuses: Record<string, number>;
    stored: { Account: number; Contact: number; linkedContacts: number };
  };
  hostCpuMs: number;
}

export interface EmulatorHost {
  salesIntel: { url: string; tokenUrl: string };
  hubspot?: string;
  salesforce?: string;
  stats(): Promise<HostStats>;
  /** Zeroes the counters (the data and CRM state stay). */
  reset(): Promise<HostStats>;
  stop(): Promise<void>;
}

export async function startEmulatorHost(options: HostOptions): Promise<EmulatorHost> {
  const entry = fileURLToPath(new URL('./emulator-host.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', entry, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<unknown> => {
    const line = await lines.next();
    if (line.done === true) throw new Error('emulator host exited');
    return JSON.parse(line.value as string);
  };
  const urls = (await next()) as {
    salesIntel: { url: string; tokenUrl: string };
    hubspot?: string;
    salesforce?: string;
  };
  // One request at a time: each command line gets exactly one answer line.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = (cmd: string): Promise<HostStats> => {
    const answer = queue.then(async () => {
      child.stdin.write(`${cmd}\n`);
      return (await next()) as HostStats;
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
  return {
    ...urls,
    stats: () => ask('stats'),
    reset: () => ask('reset'),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.stdin.end();
      await once(child, 'exit');
    },
  };
}

/**
 * The Sales-Intelligence emulator and the CRMs each in a process of its own: a large dataset's pages cannot starve the
 * CRM's answers past the worker's deadlines on a loaded machine. Stats are merged; `hostCpuMs` is both processes'.
 */
export async function startSplitEmulatorHosts(options: HostOptions): Promise<EmulatorHost> {
  const [api, crm] = await Promise.all([
    startEmulatorHost({ salesIntel: options.salesIntel }),
    startEmulatorHost({ ...options, salesIntel: null }),
  ]);
  const merge = (a: HostStats, c: HostStats): HostStats => ({
    ...c,
    salesIntel: a.salesIntel,
    hostCpuMs: a.hostCpuMs + c.hostCpuMs,
  });
  return {
    salesIntel: api.salesIntel,
    ...(crm.hubspot === undefined ? {} : { hubspot: crm.hubspot }),
    ...(crm.salesforce === undefined ? {} : { salesforce: crm.salesforce }),
    stats: async () => merge(await api.stats(), await crm.stats()),
    reset: async () => merge(await api.reset(), await crm.reset()),
    stop: async () => {
      await Promise.all([api.stop(), crm.stop()]);
    },
  };
}
