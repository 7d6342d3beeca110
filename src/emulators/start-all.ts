/**
 * Starts the Sales-Intelligence, HubSpot and Salesforce emulators together, for `prospect-sync emulate`, `demo` and
 * tests. Returns their handles, URLs and the environment a config needs to point at them.
 */
import { startHubSpotEmulator, type HubSpotEmulator } from './hubspot/index.js';
import {
  startSalesIntelEmulator,
  type SalesIntelEmulator,
  type SalesIntelEmulatorOptions,
} from './sales-intel/index.js';
import { startSalesforceEmulator, type SalesforceEmulator } from './salesforce/index.js';

export const DEFAULT_EMULATOR_PORTS = { salesIntel: 4010, hubspot: 4020, salesforce: 4030 } as const;

/**
 * Data size `demo` and `emulate` start the Sales-Intelligence emulator with: big enough that the example search
 * (software, DE/AT/CH, headcount 50-5000) matches a few hundred companies (436 with seed 1; 8 on the default
 * 10,000) while the emulator still starts in ~0.1 s (measured: 95 ms, +50 MB RSS).
 */
export const DEMO_DATASET = { companies: 400_000, persons: 1_000_000 } as const;

/** Demo credentials: the emulators accept them, nothing else does. */
export const EMULATOR_CREDENTIALS = {
  siClientId: 'demo-client',
  siClientSecret: 'demo-secret',
  hubspotToken: 'demo-hubspot-token',
  sfClientId: 'demo-sf-client',
  sfClientSecret: 'demo-sf-secret',
} as const;

export interface StartAllOptions {
  /** Ports; default 4010 / 4020 / 4030. Pass 0 for any free port (tests). */
  ports?: Partial<Record<keyof typeof DEFAULT_EMULATOR_PORTS, number>>;
  /** Extra options for the Sales-Intelligence emulator (data size, seed, windowSeconds...). */
  salesIntel?: Omit<SalesIntelEmulatorOptions, 'port' | 'accounts'>;
}

/** The variables the example config interpolates. */
export interface EmulatorEnv {
  SI_BASE_URL: string;
  SI_TOKEN_URL: string;
  SI_CLIENT_ID: string;
  SI_CLIENT_SECRET: string;
  HUBSPOT_BASE_URL: string;
  HUBSPOT_TOKEN: string;
  SF_LOGIN_URL: string;
  SF_CLIENT_ID: string;
  SF_CLIENT_SECRET: string;
}

export interface RunningEmulators {
  salesIntel: SalesIntelEmulator;
  hubspot: HubSpotEmulator;
  salesforce: SalesforceEmulator;
  urls: { salesIntel: string; hubspot: string; salesforce: string };
  env: EmulatorEnv;
  close(): Promise<void>;
}

export async function startAllEmulators(opts: StartAllOptions = {}): Promise<RunningEmulators> {
  const ports = { ...DEFAULT_EMULATOR_PORTS, ...opts.ports };
  const c = EMULATOR_CREDENTIALS;
  const started: { close(): Promise<void> }[] = [];
  try {
    const salesIntel = await startSalesIntelEmulator({
      ...opts.salesIntel,
      port: ports.salesIntel,
      accounts: [{ clientId: c.siClientId, clientSecret: c.siClientSecret, accountId: 'demo' }],
    });
    started.push(salesIntel);
    const hubspot = await startHubSpotEmulator({ port: ports.hubspot, accessTokens: [c.hubspotToken] });
    started.push(hubspot);
    const salesforce = await startSalesforceEmulator({
      port: ports.salesforce,
      clients: [{ clientId: c.sfClientId, clientSecret: c.sfClientSecret }],
    });
    started.push(salesforce);
    return {
      salesIntel,
      hubspot,
      salesforce,
      urls: { salesIntel: salesIntel.url, hubspot: hubspot.url, salesforce: salesforce.url },
      env: {
        SI_BASE_URL: salesIntel.url,
        SI_TOKEN_URL: salesIntel.tokenUrl,
        SI_CLIENT_ID: c.siClientId,
        SI_CLIENT_SECRET: c.siClientSecret,
        HUBSPOT_BASE_URL: hubspot.url,
        HUBSPOT_TOKEN: c.hubspotToken,
        SF_LOGIN_URL: salesforce.url,
        SF_CLIENT_ID: c.sfClientId,
        SF_CLIENT_SECRET: c.sfClientSecret,
      },
      close: async () => {
        await Promise.all(started.map((e) => e.close()));
      },
    };
  } catch (err) {
    await Promise.allSettled(started.map((e) => e.close()));
    throw err;
  }
}
