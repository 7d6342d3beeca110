/** Reads the Dockerfile into stages of instructions (continuation lines joined), for the container tests. */
import { readFileSync } from 'node:fs';

export interface Instruction {
  op: string;
  args: string;
}

export function dockerfileStages(path = 'Dockerfile'): Instruction[][] {
  const text = readFileSync(path, 'utf8').replace(/\\\n\s*/g, ' ');
  const stages: Instruction[][] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const space = line.indexOf(' ');
    const op = line.slice(0, space).toUpperCase();
    const args = line.slice(space + 1).trim();
    if (op === 'FROM') stages.push([]);
    stages.at(-1)?.push({ op, args });
  }
  return stages;
}

/** The HEALTHCHECK's command as an argv (exec form). */
export function healthcheckArgv(stage: Instruction[]): string[] | undefined {
  const hc = stage.find((i) => i.op === 'HEALTHCHECK');
  const exec = hc ? /CMD\s+(\[.*\])\s*$/.exec(hc.args) : null;
  return exec?.[1] ? (JSON.parse(exec[1]) as string[]) : undefined;
}

/** `A=b`, `A="b c"` (a double-quoted value may hold spaces and backslash escapes), as Docker reads them. */
const ENV_PAIR = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g;

/** ENV lines of a stage as a record (`ENV A=b C="d e"` form). */
export function stageEnv(stage: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.filter((x) => x.op === 'ENV')) {
    for (const [, key, raw] of i.args.matchAll(ENV_PAIR)) {
      const quoted = raw!.startsWith('"') && raw!.endsWith('"') && raw!.length >= 2;
      env[key!] = quoted ? raw!.slice(1, -1).replace(/\\(.)/g, '$1') : raw!;
    }
  }
  return env;
}
