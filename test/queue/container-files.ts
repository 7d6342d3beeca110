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

/** ENV lines of a stage as a record (`ENV A=b C=d` form). */
export function stageEnv(stage: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.filter((x) => x.op === 'ENV')) {
    for (const pair of i.args.split(/\s+/)) {
      const eq = pair.indexOf('=');
      if (eq > 0) env[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  return env;
}
