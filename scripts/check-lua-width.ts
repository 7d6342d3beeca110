/**
 * Fails on a line over 120 characters in the tracked Lua scripts, naming file:line (ESLint's max-len holds the
 * TypeScript and JavaScript files; nothing lints Lua). `npm run lint:lua` runs it, `npm run check` too.
 */
import { execFileSync } from 'node:child_process';
import { filesLinesOverWidth } from './wrap-long-lines/line-width.js';

const args = process.argv.slice(2);
const files = args.length > 0 ? args : execFileSync('git', ['ls-files', '*.lua'], { encoding: 'utf8' }).split('\n');
const over = filesLinesOverWidth(files.filter(Boolean));
for (const line of over) console.error(line);
process.exitCode = over.length > 0 ? 1 : 0;
