/**
 * `emulate`: the three local emulators on fixed ports (4010 SI, 4020 HubSpot, 4030 Salesforce; flags or env override),
 * the Sales-Intelligence one with the demo's data size (DEMO_DATASET), printing their URLs and the env vars to
 * export; runs until SIGTERM/SIGINT.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_EMULATOR_PORTS, DEMO_DATASET, startAllEmulators } from '../../emulators/start-all.js';
import { exitOnSignals } from '../../queue/index.js';
import { createLogger } from '../../shared/logger.js';
import { EXIT } from '../exit-codes.js';

const USAGE = 'usage: prospect-sync emulate [--si-port <n>] [--hubspot-port <n>] [--sf-port <n>] [--json]\n';

function port(flag: string | undefined, envValue: string | undefined, fallback: number): number | undefined {
  const raw = flag ?? envValue;
  if (raw === undefined) return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 && n <= 65_535 ? n : undefined;
}

export async function runCommand(argv: string[]): Promise<number> {
  let values: { 'si-port'?: string; 'hubspot-port'?: string; 'sf-port'?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { 'si-port': { type: 'string' }, 'hubspot-port': { type: 'string' }, 'sf-port': { type: 'string' }, json: { type: 'boolean' } },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    return EXIT.usage;
  }
  const ports = {
    salesIntel: port(values['si-port'], process.env.SI_EMULATOR_PORT, DEFAULT_EMULATOR_PORTS.salesIntel),
    hubspot: port(values['hubspot-port'], process.env.HUBSPOT_EMULATOR_PORT, DEFAULT_EMULATOR_PORTS.hubspot),
    salesforce: port(values['sf-port'], process.env.SF_EMULATOR_PORT, DEFAULT_EMULATOR_PORTS.salesforce),
  };
  if (Object.values(ports).some((p) => p === undefined)) {
    process.stderr.write(`invalid port\n${USAGE}`);
    return EXIT.usage;
  }
  const emulators = await startAllEmulators({ ports: ports as Record<keyof typeof ports, number>, salesIntel: DEMO_DATASET });
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ urls: emulators.urls, env: emulators.env })}\n`);
  } else {
    process.stdout.write(
      `Sales-Intelligence API emulator: ${emulators.urls.salesIntel}\n` +
        `HubSpot emulator:               ${emulators.urls.hubspot}\n` +
        `Salesforce emulator:            ${emulators.urls.salesforce}\n\n` +
        `# point a config at them (these are emulator-only demo credentials):\n` +
        Object.entries(emulators.env)
          .map(([k, v]) => `export ${k}=${v}`)
          .join('\n') +
        '\n',
    );
  }
  exitOnSignals(() => emulators.close(), { logger: createLogger() });
  return new Promise<number>(() => undefined); // exitOnSignals ends the process
}
