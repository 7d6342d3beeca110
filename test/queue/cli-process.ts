import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeEntry } from '../helpers/node-entry.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export const CONFIG_ENV = {
  SI_CLIENT_SECRET: 'test-si-secret',
  HUBSPOT_TOKEN: 'test-hubspot-token',
  LOG_LEVEL: 'warn',
};

/** A minimal valid config; `searches` is the YAML list under `searches:`. */
export function configYaml(searches: string): string {
  return `source:
  baseUrl: http://127.0.0.1:9/api
  auth:
    tokenUrl: http://127.0.0.1:9/oauth/token
    clientId: demo-client
    clientSecret: \${SI_CLIENT_SECRET}
destinations:
  crm:
    type: hubspot
    accessToken: \${HUBSPOT_TOKEN}
    baseUrl: http://127.0.0.1:9
server:
  port: 0
searches:
${searches}`;
}

export function searchYaml(name: string, schedule: string): string {
  return `  - name: ${name}
    segment: icp
    entity: companies
    filter: {company: {industry: {include: [software]}}}
    schedule: ${schedule}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name}
`;
}

export interface CliChild {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

/** Node's arguments that start the CLI (compiled once per run, see test/helpers/node-entry.ts). */
export function cliEntry(): string[] {
  return nodeEntry(MAIN);
}

/** Runs `prospect-sync <args>` in a child Node process, as a user would. */
export function cli(args: string[], env: Record<string, string>): CliChild {
  const child = spawn(process.execPath, [...cliEntry(), ...args], {
    env: { ...process.env, ...CONFIG_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}
