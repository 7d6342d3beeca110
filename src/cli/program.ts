/**
 * The prospect-sync command line, declared once: every command, its arguments, typed options and help text. Each
 * command's code lives in src/cli/commands/<name>.ts and is loaded only when that command runs (so `schema` or
 * `--help` never load jsforce or BullMQ). Commander parses and validates; failures become exit codes in one place
 * (src/cli/cli-errors.ts, table in docs/cli.md).
 */
import { Command, CommanderError, Option, type OptionValues } from 'commander';
import { reportError, UsageError } from './cli-errors.js';
import type { LimitOption } from './command-context.js';
import { EXIT } from './exit-codes.js';
import { instant, positiveInteger, tcpPort } from './option-parsers.js';
import { packageVersion } from './package-version.js';
import type * as RejectsCommand from './commands/rejects.js';

export const HELP_FOOTER = `
Exit codes: 0 ok/completed, 1 failed, 2 config or usage error (also a credential or schema refused by any remote),
            3 partial or delayed run, 4 Redis unreachable. See docs/cli.md.
Environment: REDIS_URL (default redis://127.0.0.1:6379), QUEUE_PREFIX, PROSPECT_SYNC_CONFIG, LOG_LEVEL.`;

const configOption = (fallback = '$PROSPECT_SYNC_CONFIG, else config/prospect-sync.yaml'): Option =>
  new Option('--config <file>', `config file (default: ${fallback})`);
const jsonOption = (what: string): Option => new Option('--json', what);

/** Commander flags `--json` with its argv; a usage error is printed as JSON when the user asked for JSON. */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/**
 * Parses `argv` (without node and the script), runs the command and resolves to its exit code. `inspect` receives
 * the declared program instead of a parse (the generated docs/reference/cli.md).
 */
export async function runCli(argv: readonly string[], inspect?: (program: Command) => void): Promise<number> {
  const json = wantsJson(argv);
  let exitCode: number = EXIT.ok;
  const program = new Command('prospect-sync');
  program
    .description(
      'Mirrors B2B company and people data from a Sales-Intelligence API into HubSpot or Salesforce on a schedule.',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => {
        if (json)
          process.stdout.write(
            `${JSON.stringify({ error: { code: 'usage_error', message: str.replace(/^error: /, '').trim() } })}\n`,
          );
        else write(`prospect-sync: ${str.replace(/^error: /, '')}`);
      },
    })
    .addHelpText('after', HELP_FOOTER);

  /** The action of `name`: runs `body`, turning a thrown error into its printed report and exit code. */
  const act =
    (name: string, body: (args: string[], opts: OptionValues) => Promise<number>) =>
    async (...params: unknown[]): Promise<void> => {
      const cmd = params.at(-1) as Command;
      const opts = cmd.opts();
      try {
        exitCode = await body(cmd.args, opts);
      } catch (err) {
        exitCode = await reportError(err, { command: name, json: opts.json === true });
      }
    };
  const arg = (args: string[]): string => {
    if (args[0] === undefined) throw new UsageError('missing argument');
    return args[0];
  };

  program
    .command('validate')
    .description('load and check the config; --online also checks filter values against the API dictionaries')
    .addOption(configOption())
    .option('--online', "also check filter values against the API's dictionaries (needs Redis and the API)")
    .addOption(jsonOption('print one JSON object {file, valid, issues, warnings}'))
    .action(act('validate', async (_, o) => (await import('./commands/validate.js')).runCommand(o)));

  program
    .command('values')
    .description("the values a filter field accepts, from the API's dictionary (cached for an hour)")
    .argument('<dictionary>', 'industry, country, region, technology, seniority or department')
    .option('--search <text>', 'only values or labels containing this text (any case)')
    .addOption(configOption())
    .addOption(jsonOption('print {dictionary, values: [{value, label}]} as one JSON object'))
    .action(act('values', async (a, o) => (await import('./commands/values.js')).runCommand(arg(a), o)));

  program
    .command('schema')
    .description("print the config's JSON Schema (for editor completion)")
    .action(act('schema', async () => (await import('./commands/schema.js')).runCommand()));

  program
    .command('plan')
    .description(
      'count matches (free) and print pages, tokens, credits, partitions and time against the budget left; ' +
        '--all: every scheduled search until the token reset',
    )
    .argument('[search]', 'saved search name (or --all)')
    .option(
      '--all',
      'forecast every scheduled search until the token reset: runs left, tokens and credits, the day the ' +
        'allotment runs out',
    )
    .addOption(configOption())
    .addOption(jsonOption('print the plan (with --all: {forecast, searches}) as one JSON object'))
    .action(
      act('plan', async (a, o) => {
        if (o.all === true) {
          if (a[0] !== undefined) throw new UsageError('plan takes a search or --all, not both');
          return (await import('./commands/plan-all.js')).runCommand(o);
        }
        if (a[0] === undefined) throw new UsageError("missing required argument 'search' (or --all)");
        return (await import('./commands/plan.js')).runCommand(a[0], o);
      }),
    );

  program
    .command('account')
    .description(
      'the package as the worker knows it: learned limits, token balance and reset, credits today, account settings',
    )
    .addOption(configOption())
    .addOption(jsonOption('print {limits, tokens, credits, settings} as one JSON object'))
    .action(act('account', async (_, o) => (await import('./commands/account.js')).runCommand(o)));

  program
    .command('run')
    .description('run one sync in this process to its end (no scheduler), with a progress bar on a TTY')
    .argument('<search>', 'saved search name')
    .option(
      '--dry-run',
      'fetch without contacts (tokens, no credit) and map, read the CRM, write nothing; ' +
        'forecasts credits from the reveal store',
    )
    .addOption(
      new Option('--sample <n>', 'with --dry-run: walk at most n records (a quick look)').argParser(positiveInteger),
    )
    .option('--full-resync', 'send every record, also those unchanged since the last run')
    .addOption(configOption())
    .addOption(jsonOption('print the run summary as the last stdout line (one JSON object)'))
    .addHelpText('after', '\nExit: 0 completed, 1 failed, 2 config error, 3 partial or delayed, 4 Redis unreachable.')
    .action(
      act('run', async (a, o) => {
        if (o.sample !== undefined && o.dryRun !== true) throw new UsageError('--sample needs --dry-run');
        return (await import('./commands/run.js')).runCommand(arg(a), o);
      }),
    );

  program
    .command('trigger')
    .description('enqueue a run now through the queue (a pending run of the search is reported, not doubled)')
    .argument('<search>', 'saved search name')
    .option('--full-resync', 'the run sends every record, also those unchanged since the last run')
    .option(
      '--force',
      'this run is not paced (source.tokens.pace): it starts even when higher-priority searches need the tokens',
    )
    .addOption(configOption())
    .addOption(jsonOption('print {search, jobId, deduplicated, state?} as one JSON object'))
    .action(act('trigger', async (a, o) => (await import('./commands/trigger.js')).runCommand(arg(a), o)));

  const roles = (
    name: string,
    description: string,
    set: { scheduler: boolean; worker: boolean; dashboard: boolean },
  ): Command => {
    const cmd = program.command(name).description(description).addOption(configOption());
    if (set.worker)
      cmd.addOption(
        new Option('--concurrency <n>', 'runs at once in this process (overrides worker.concurrency)').argParser(
          positiveInteger,
        ),
      );
    if (set.dashboard) {
      cmd.addOption(
        new Option('--port <n>', 'dashboard port, 0 for a free one (overrides server.port)').argParser(tcpPort),
      );
      cmd.addOption(new Option('--host <addr>', 'dashboard address (overrides server.host)'));
    }
    cmd.addHelpText(
      'after',
      '\nRuns until SIGTERM/SIGINT (graceful). SIGHUP re-reads the config (see docs/operations.md).',
    );
    return cmd.action(act(name, async (_, o) => (await import('./commands/start.js')).runRoles(set, o)));
  };
  roles('start', 'scheduler + workers + dashboard server in one process', {
    scheduler: true,
    worker: true,
    dashboard: true,
  });
  roles('worker', 'the workers only (runs sync jobs), for scaling out', {
    scheduler: false,
    worker: true,
    dashboard: false,
  });
  roles('scheduler', 'the scheduler only (job schedulers from the config, ticks into runs)', {
    scheduler: true,
    worker: false,
    dashboard: false,
  });
  roles('dashboard', 'the dashboard server only (bull-board, /healthz, /metrics, /runs)', {
    scheduler: false,
    worker: false,
    dashboard: true,
  });

  // `runs` and `rejects`: a search's recent history, newest first, as text or one JSON object.
  const history = (
    name: string,
    description: string,
    limit: number,
    json: string,
    load: () => Promise<typeof RejectsCommand>,
    extra: Option[] = [],
  ): void => {
    const command = program
      .command(name)
      .description(description)
      .argument('<search>', 'saved search name')
      .addOption(new Option('--limit <n>', 'how many').argParser(positiveInteger).default(limit))
      .addOption(configOption())
      .addOption(jsonOption(json));
    for (const option of extra) command.addOption(option);
    command.action(act(name, async (a, o) => (await load()).runCommand(arg(a), o as LimitOption)));
  };
  program
    .command('runs')
    .description('recent run summaries of a search, newest first; without a search, the last run of every search')
    .argument('[search]', 'saved search name')
    .addOption(new Option('--limit <n>', 'how many').argParser(positiveInteger).default(20))
    .addOption(configOption())
    .addOption(jsonOption('print {search, runs} (without a search: {searches: [{search, last}]}) as one JSON object'))
    .action(act('runs', async (a, o) => (await import('./commands/runs.js')).runCommand(a[0], o as LimitOption)));
  history(
    'rejects',
    'records the CRM (or the mapping) rejected, grouped by code and field (count and one example); --all lists ' +
      'each, newest first',
    100,
    'print {search, pending, rejects, groups} as one JSON object (every entry, up to --limit)',
    () => import('./commands/rejects.js'),
    [new Option('--all', 'list every reject (up to --limit), newest first, instead of the groups')],
  );

  program
    .command('leavers')
    .description(
      "a search's confirmed leavers not acted on yet (held back by the leave guard); --apply acts on them as " +
        'its onLeave says',
    )
    .argument('<search>', 'saved search name')
    .option('--apply', "act on them now and accept the drop (the last run's matches become the guard's baseline)")
    .addOption(configOption())
    .addOption(jsonOption('print {search, onLeave, pending, applied?} as one JSON object'))
    .action(act('leavers', async (a, o) => (await import('./commands/leavers.js')).runCommand(arg(a), o)));

  program
    .command('forget')
    .description(
      'lists every trace of one person in our stores and the CRM; --apply erases them and keeps them out of later runs',
    )
    .argument('<person>', 'a person id, or an email address (looked up in the CRM)')
    .addOption(
      new Option('--crm <how>', "what --apply does to the person's CRM record")
        .choices(['gdpr-delete', 'archive', 'nothing'])
        .default('nothing'),
    )
    .option('--apply', 'erase (without it, nothing changes)')
    .option('--reason <text>', 'why (kept in the audit entry, redacted)')
    .addOption(configOption())
    .addOption(
      jsonOption('print {by, personIdKnown, emailKnown, ref, traces, crm, applied, audit?} as one JSON object'),
    )
    .action(act('forget', async (a, o) => (await import('./commands/forget.js')).runCommand(arg(a), o)));

  program
    .command('reveals')
    .description(
      'the reveal log, oldest first: a line per paid reveal (person id, search, segment, run, time; no contact value)',
    )
    .addOption(new Option('--since <date>', 'only from this UTC day (2026-11-28) or ISO time on').argParser(instant))
    .option('--search <name>', "only this search's reveals (erasure lines are always shown)")
    .option('--csv', 'print CSV: a header, then time,event,person_id,search,segment,run_id per line')
    .addOption(configOption())
    .addOption(jsonOption('print {logDays, reveals, lines} as one JSON object'))
    .action(act('reveals', async (_, o) => (await import('./commands/reveals.js')).runCommand(o)));

  program
    .command('emulate')
    .description('start the local Sales-Intelligence, HubSpot and Salesforce emulators and print their URLs')
    .addOption(
      new Option('--si-port <n>', 'Sales-Intelligence emulator port (default: 4010)')
        .env('SI_EMULATOR_PORT')
        .argParser(tcpPort),
    )
    .addOption(
      new Option('--hubspot-port <n>', 'HubSpot emulator port (default: 4020)')
        .env('HUBSPOT_EMULATOR_PORT')
        .argParser(tcpPort),
    )
    .addOption(
      new Option('--sf-port <n>', 'Salesforce emulator port (default: 4030)')
        .env('SF_EMULATOR_PORT')
        .argParser(tcpPort),
    )
    .addOption(jsonOption('print {urls, env} as one JSON line'))
    .action(act('emulate', async (_, o) => (await import('./commands/emulate.js')).runCommand(o)));

  program
    .command('demo')
    .description('emulators + example config + a sync you can watch on the dashboard, in one command')
    .option('--once', 'exit after the first run (also without a TTY or under CI)')
    .option('--search <name>', 'the search to run (default: the first companies search)')
    .addOption(configOption('config/demo.yaml, the emulator config'))
    .action(act('demo', async (_, o) => (await import('./commands/demo.js')).runCommand(o)));

  if (inspect) {
    inspect(program);
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // --help and --version end with code 0; every other parse failure is a usage error.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  return exitCode;
}
