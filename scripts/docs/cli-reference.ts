/** docs/reference/cli.md from the command definitions (src/cli/program.ts, commander). */
import type { Command, Option } from 'commander';
import { HELP_FOOTER, runCli } from '../../src/cli/program.js';
import { code, generatedBanner, table } from './markdown.js';

async function declaredProgram(): Promise<Command> {
  let program: Command | undefined;
  await runCli([], (p) => {
    program = p;
  });
  if (!program) throw new Error('runCli did not hand over its program');
  return program;
}

function optionRow(option: Option): string[] {
  const dflt = option.defaultValue === undefined ? '' : code(String(option.defaultValue));
  const env = option.envVar === undefined ? '' : ` (env ${code(option.envVar)})`;
  return [code(option.flags), dflt, `${option.description}${env}`];
}

function usage(cmd: Command): string {
  const args = cmd.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
  return [cmd.name(), ...args].join(' ');
}

function commandSection(cmd: Command): string {
  const parts = [`## ${code(usage(cmd))}`, '', `${cmd.description()}.`];
  const args = cmd.registeredArguments.map((a) => [
    code(a.name()),
    a.required ? 'required' : 'optional',
    a.description,
  ]);
  if (args.length > 0) parts.push('', table(['argument', '', ''], args));
  const options = cmd.options.map(optionRow);
  if (options.length > 0) parts.push('', table(['option', 'default', ''], options));
  return parts.join('\n');
}

export async function cliReference(): Promise<string> {
  const program = await declaredProgram();
  return [
    generatedBanner('Command reference', '`src/cli/program.ts`'),
    `${program.description()}`,
    '',
    'Usage: `prospect-sync <command> [options]`; `prospect-sync <command> --help` prints the same. Global options:',
    '',
    table(['option', 'default', ''], program.createHelp().visibleOptions(program).map(optionRow)),
    '',
    '```',
    HELP_FOOTER.trim(),
    '```',
    '',
    'Exit codes, `--json` errors, Redis down and SIGHUP: [cli.md](../cli.md).',
    '',
    program.commands.map(commandSection).join('\n\n'),
    '',
  ].join('\n');
}
