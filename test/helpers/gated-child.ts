/**
 * A child process that prints `ready`, waits for one line on stdin (the go signal, with whatever it carries), and
 * prints its result as the last stdout line (JSON). Lets a test start several processes, then release them together.
 */
import { spawn } from 'node:child_process';
import { nodeEntry } from './node-entry.js';

export interface GatedChild<R> {
  ready: Promise<void>;
  /** Sends the go line (ends stdin). */
  go(line?: string): void;
  result: Promise<R>;
}

export function spawnGatedChild<R>(script: string, env: Record<string, string>): GatedChild<R> {
  const child = spawn(process.execPath, nodeEntry(script), {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) onReady();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const result = new Promise<R>((resolve, reject) => {
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited ${code}: ${err.slice(-2000)}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as R);
    });
  });
  return { ready, result, go: (line = 'go') => child.stdin.end(`${line}\n`) };
}
