/**
 * docs/getting-started.md works as written: its YAML blocks parse, the ones that name a file (`# my.yaml`) are
 * saved as that file, and its shell blocks run in order, as one script, against the emulators (the ones `emulate`
 * starts) and a real Redis. Left out: installing, the demo and the commands that run until stopped.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEMO_DATASET, startAllEmulators, type RunningEmulators } from '../../src/emulators/start-all.js';
import { testRedis } from '../helpers/redis.js';
import { cli } from '../queue/cli-process.js';

const DOC = fileURLToPath(new URL('../../docs/getting-started.md', import.meta.url));
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** tsx's loader by path: the script runs in the reader's folder, where `--import tsx` would not resolve. */
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
/** Commands a reader runs once or that run until stopped: the test stands in for them (emulators, Redis). */
const NOT_RUN = /^(npm ci|npm run demo|npx prospect-sync (emulate|start))\b/;

interface Block {
  lang: string;
  body: string;
}

function blocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }));
}

/** A shell block's commands, a `\` continuation joined to its line. */
function commands(body: string): string[] {
  return body
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/**
 * The doc's shell blocks as one bash script: `npx prospect-sync` is this checkout's CLI; the first failure stops it.
 */
export function docScript(markdown: string): string {
  const lines = blocks(markdown)
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => commands(b.body))
    .filter((c) => !NOT_RUN.test(c));
  return [
    'set -e',
    'npx() { if [ "$1" = prospect-sync ]; then shift; "$NODE" --import "$TSX" "$CLI_MAIN" "$@"; ' +
      'else echo "npx $1: not part of this test" >&2; return 127; fi; }',
    'set -x',
    ...lines,
  ].join('\n');
}

describe('docs/getting-started.md', () => {
  const markdown = readFileSync(DOC, 'utf8');
  let emulators: RunningEmulators;
  let redis: Awaited<ReturnType<typeof testRedis>>;
  let dir: string;

  beforeAll(async () => {
    emulators = await startAllEmulators({
      ports: { salesIntel: 0, hubspot: 0, salesforce: 0 },
      salesIntel: DEMO_DATASET,
    });
    redis = await testRedis('getting-started');
    // the reader's checkout, as far as the commands see it: the shipped production config
    dir = await mkdtemp(join(tmpdir(), 'ps-getting-started-'));
    await cp(
      fileURLToPath(new URL('../../config/prospect-sync.yaml', import.meta.url)),
      join(dir, 'config', 'prospect-sync.yaml'),
    );
  });
  afterAll(async () => {
    await emulators?.close();
    await redis?.cleanup();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('has YAML blocks that parse, and one config file to save', () => {
    const yaml = blocks(markdown).filter((b) => b.lang === 'yaml');
    for (const b of yaml) expect(() => parse(b.body) as unknown, b.body.slice(0, 60)).not.toThrow();
    expect(yaml.filter((b) => b.body.startsWith('# my.yaml\n'))).toHaveLength(1);
  });

  it('takes a reader to a persons-after-companies sync with reveals, a cap, a list and onLeave', async () => {
    for (const b of blocks(markdown).filter((x) => x.lang === 'yaml')) {
      const name = /^# ([\w.-]+\.yaml)\n/.exec(b.body)?.[1];
      if (name) await writeFile(join(dir, name), b.body);
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...emulators.env,
      // what `emulate` prints besides the emulators' variables
      DASHBOARD_PASSWORD: 'made-up-at-start',
      QUEUE_PREFIX: redis.prefix,
      LOG_LEVEL: 'silent',
      NODE: process.execPath,
      CLI_MAIN: MAIN,
      TSX,
    };
    delete env.PROSPECT_SYNC_CONFIG;
    const child = spawn('bash', ['-c', docScript(markdown)], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(code, `${out}\n${err}`).toBe(0);
    expect(out).toContain('valid (2 searches');

    const runs = cli(['runs', 'icp-leaders', '--json', '--config', join(dir, 'my.yaml')], {
      ...emulators.env,
      QUEUE_PREFIX: redis.prefix,
      LOG_LEVEL: 'silent',
    });
    expect(await runs.exited, runs.err()).toBe(0);
    const [leaders] = (JSON.parse(runs.out()) as { runs: Record<string, unknown>[] }).runs;
    expect(leaders).toMatchObject({ status: 'completed', dryRun: false });
    const created = leaders?.created as number;
    expect(created).toBeGreaterThan(0);
    // every person revealed and paid for, under the cap; every one listed; every one linked to its company
    expect(leaders?.personsRevealed).toBe(created);
    expect(leaders?.creditsSpent).toBe(created);
    expect(leaders?.listAdded).toBe(created);
    expect(leaders?.linkErrors ?? 0).toBe(0);

    const { state } = emulators.hubspot;
    const contacts = [...(state.tables.get('contacts')?.objects.values() ?? [])];
    expect(contacts).toHaveLength(created);
    for (const c of contacts) {
      expect(c.properties.email).toMatch(/@/);
      expect(c.properties.si_in_search).toBe('true');
    }
    const list = [...state.lists.byId.values()].find((l) => l.name === 'ICP leaders');
    expect(list?.members.size).toBe(created);
    const linked = new Set(state.associations.filter((a) => a.fromType === 'contacts').map((a) => a.fromId));
    expect(linked.size).toBe(created);
  }, 600_000);
});
