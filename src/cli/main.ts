/**
 * prospect-sync command line. Each command lives in src/cli/commands/<name>.ts and exports
 * `runCommand(argv: string[]): Promise<number>` (the exit code). Loaded lazily so `schema` does not pay for jsforce.
 */
import { EXIT } from './exit-codes.js';

const COMMANDS: Record<string, { file: string; summary: string }> = {
  validate: { file: 'validate', summary: 'load and check the config (--online: also against the API dictionaries)' },
  schema: { file: 'schema', summary: "print the config's JSON Schema" },
  plan: { file: 'plan', summary: 'count matches and print pages, tokens, credits, partitions, time vs. budget' },
  run: { file: 'run', summary: 'run one sync in this process (--dry-run, --full-resync, --json)' },
  trigger: { file: 'trigger', summary: 'enqueue a run now through the queue (--full-resync)' },
  start: { file: 'start', summary: 'scheduler + workers + dashboard in one process' },
  worker: { file: 'worker', summary: 'workers only' },
  scheduler: { file: 'scheduler', summary: 'scheduler only' },
  dashboard: { file: 'dashboard', summary: 'dashboard server only' },
  runs: { file: 'runs', summary: 'recent run summaries of a search' },
  rejects: { file: 'rejects', summary: 'records the CRM rejected, with reasons' },
  emulate: { file: 'emulate', summary: 'start the local Sales-Intelligence, HubSpot and Salesforce emulators' },
  demo: { file: 'demo', summary: 'emulators + example config + a sync to watch, in one command' },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  return `usage: prospect-sync <command> [options]\n\ncommands:\n${lines.join('\n')}\n\ncommon options: --config <file> (else $PROSPECT_SYNC_CONFIG, else config/prospect-sync.yaml)\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`prospect-sync: unknown command '${name}'\n\n${usage()}`);
    return EXIT.usage;
  }
  const mod = (await import(`./commands/${command.file}.js`)) as { runCommand: (argv: string[]) => Promise<number> };
  return mod.runCommand(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`prospect-sync: ${message}\n`);
    process.exitCode = EXIT.failed;
  },
);
