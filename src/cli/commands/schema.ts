/** `prospect-sync schema`: prints the config's JSON Schema (for editor completion); exit 0. */
import { configJsonSchema } from '../../config/index.js';
import { EXIT } from '../exit-codes.js';

export async function runCommand(): Promise<number> {
  process.stdout.write(`${JSON.stringify(configJsonSchema(), null, 2)}\n`);
  return EXIT.ok;
}
