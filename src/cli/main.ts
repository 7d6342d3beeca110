/** prospect-sync command line entry point: the commands are declared in program.ts. */
import { runCli } from './program.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // Only a bug gets here: commands report their own errors.
    process.stderr.write(`prospect-sync: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
