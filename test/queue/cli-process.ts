import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nodeEntry } from '../helpers/node-entry.js';
import { CONFIG_ENV } from './cli-config.js';

// The config helpers live apart (./cli-config.ts): a test that only builds a config starts no process.
export { CONFIG_ENV, configYaml, searchYaml } from './cli-config.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

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
