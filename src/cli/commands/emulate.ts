/**
 * `emulate`: the three local emulators on fixed ports (4010 SI, 4020 HubSpot, 4030 Salesforce; flags or env override),
 * the Sales-Intelligence one with the demo's data size (DEMO_DATASET), printing their URLs and the env vars to
 * export; runs until SIGTERM/SIGINT.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_EMULATOR_PORTS, DEMO_DATASET, startAllEmulators } from '../../emulators/start-all.js';
import { exitOnSignals } from '../../queue/index.js';
import { createLogger } from '../../shared/logger.js';

import type { JsonOption } from '../command-context.js';

/** Ports already validated by the program (flag, else the SI_/HUBSPOT_/SF_EMULATOR_PORT variable). */
export interface EmulateOptions extends JsonOption {
  siPort?: number;
  hubspotPort?: number;
  sfPort?: number;
}

export async function runCommand(opts: EmulateOptions): Promise<number> {
  const ports = {
    salesIntel: opts.siPort ?? DEFAULT_EMULATOR_PORTS.salesIntel,
    hubspot: opts.hubspotPort ?? DEFAULT_EMULATOR_PORTS.hubspot,
    salesforce: opts.sfPort ?? DEFAULT_EMULATOR_PORTS.salesforce,
  };
  const emulators = await startAllEmulators({ ports, salesIntel: DEMO_DATASET });
  // Every variable a config needs against the emulators: theirs, and the dashboard password the production config
  // (config/prospect-sync.yaml) requires, made up for this session.
  const env = { ...emulators.env, DASHBOARD_PASSWORD: randomBytes(12).toString('base64url') };
  if (opts.json) {
    process.stdout.write(`${JSON.stringify({ urls: emulators.urls, env })}\n`);
  } else {
    process.stdout.write(
      `Sales-Intelligence API emulator: ${emulators.urls.salesIntel}\n` +
        `HubSpot emulator:               ${emulators.urls.hubspot}\n` +
        `Salesforce emulator:            ${emulators.urls.salesforce}\n\n` +
        `# point a config at them (emulator-only demo credentials; DASHBOARD_PASSWORD is new each start):\n` +
        Object.entries(env)
          .map(([k, v]) => `export ${k}=${v}`)
          .join('\n') +
        '\n',
    );
  }
  exitOnSignals(() => emulators.close(), { logger: createLogger() });
  return new Promise<number>(() => undefined); // exitOnSignals ends the process
}
