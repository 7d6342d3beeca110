/**
 * Child process for bench/emulator-throughput.ts: one emulator on one core, URL printed as a JSON line; any stdin line
 * → CPU time.
 */
import { startSalesIntelEmulator } from '../src/emulators/sales-intel/index.js';

const [companies, persons] = (process.argv[2] ?? '1000000,5000000').split(',').map(Number);
const high = { search: 1e9, count: 1e9, dictionary: 1e9 };
const emu = await startSalesIntelEmulator({
  companies,
  persons,
  accounts: [{ clientId: 'bench', clientSecret: 'bench', accountId: 'bench', limits: high }],
});
process.stdout.write(`${JSON.stringify({ url: emu.url, tokenUrl: emu.tokenUrl })}\n`);
// The parent asks for this process's CPU time so pages/s can be stated per CPU-second on a loaded machine.
process.stdin.setEncoding('utf8');
process.stdin.on('data', () => {
  const u = process.cpuUsage();
  process.stdout.write(`${JSON.stringify({ cpuMs: (u.user + u.system) / 1000 })}\n`);
});
process.on('SIGTERM', () => void emu.close().then(() => process.exit(0)));
