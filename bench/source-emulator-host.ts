/**
 * Runs a Sales-Intelligence emulator in its own process for the source benchmarks, so the client's CPU time is
 * measured alone. Options: JSON in argv[2]. Prints `{url, tokenUrl}` as one line; exits when stdin closes.
 */
import { startSalesIntelEmulator, type SalesIntelEmulatorOptions } from '../src/emulators/sales-intel/index.js';

const options = JSON.parse(process.argv[2] ?? '{}') as SalesIntelEmulatorOptions;
const emu = await startSalesIntelEmulator(options);
process.stdout.write(`${JSON.stringify({ url: emu.url, tokenUrl: emu.tokenUrl })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void emu.close().then(() => process.exit(0));
});
