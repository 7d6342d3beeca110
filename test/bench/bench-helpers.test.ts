/**
 * Smoke tests of the benchmark helpers on a few hundred records: the emulator host answers with its counters, the
 * naive baseline lands every record in HubSpot, and a CPU profile is summarised. The figures themselves are
 * measured by the bench scripts, never asserted here.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HUBSPOT_TOKEN, SI_CLIENT } from '../../bench/lib/bench-config.js';
import { topSelfTime } from '../../bench/lib/cpu-profile.js';
import { startEmulatorHost, type EmulatorHost } from '../../bench/lib/emulator-host-client.js';
import { naiveSync } from '../../bench/lib/naive-sync.js';

let host: EmulatorHost | undefined;
afterEach(async () => {
  await host?.stop();
  host = undefined;
});

describe('bench helpers', () => {
  it('the naive loop lands every record through the emulator host, whose counters see each request', async () => {
    host = await startEmulatorHost({
      salesIntel: {
        companies: 350,
        persons: 100,
        windowSeconds: 10,
        accounts: [{ ...SI_CLIENT, limits: { search: 83, count: 83, dictionary: 83 } }],
      },
      hubspot: { accessTokens: [HUBSPOT_TOKEN], limits: { perTenSeconds: 190 } },
    });
    const r = await naiveSync({
      apiUrl: host.salesIntel.url,
      tokenUrl: host.salesIntel.tokenUrl,
      clientId: SI_CLIENT.clientId,
      clientSecret: SI_CLIENT.clientSecret,
      hubspotUrl: host.hubspot!,
      hubspotToken: HUBSPOT_TOKEN,
    });
    expect(r).toMatchObject({ records: 350, pages: 4, api429: 0, hubspot429: 0 });
    const s = await host.stats();
    expect(s.salesIntel.operations.search).toBe(4);
    expect(s.salesIntel.peakPerWindow.search).toBeGreaterThanOrEqual(1);
    expect(s.hubspot).toMatchObject({ stored: { companies: 350 }, byRoute: { upsert: 4 } });
    expect(s.hubspot!.peakPerWindow).toBe(5); // the property create and four upserts
    const after = await host.reset();
    expect(after.salesIntel.operations.search).toBe(0);
    expect(after.hubspot).toMatchObject({ requests: 0, stored: { companies: 350 } });
  }, 20_000);

  it('sums a CPU profile into self time per function, idle left out', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'prof-')), 'p.cpuprofile');
    const frame = (functionName: string) => ({ functionName, url: 'file:///x/dist/src/a.js', lineNumber: 0 });
    writeFileSync(
      file,
      JSON.stringify({
        nodes: [
          { id: 1, callFrame: frame('(idle)') },
          { id: 2, callFrame: frame('hot') },
          { id: 3, callFrame: frame('cold') },
        ],
        samples: [1, 2, 2, 3, 1],
        timeDeltas: [5000, 3000, 3000, 2000, 9000],
      }),
    );
    expect(topSelfTime(file, 2)).toEqual([
      { fn: 'hot', where: 'dist/src/a.js:1', ms: 6, share: 0.75 },
      { fn: 'cold', where: 'dist/src/a.js:1', ms: 2, share: 0.25 },
    ]);
  });
});
