/** The process's live config: a valid file swaps in as one value, an invalid one is refused, reloads run in order. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLiveConfig } from '../../src/cli/live-config.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { configYaml, searchYaml } from './cli-config.js';

describe('live config', () => {
  let dir: string | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it(
    'swaps in a valid file, refuses an invalid one with its file:line issues and keeps the previous ' + 'config',
    async () => {
      vi.stubEnv('SI_CLIENT_SECRET', 's');
      vi.stubEnv('HUBSPOT_TOKEN', 't');
      dir = await mkdtemp(join(tmpdir(), 'ps-live-'));
      const file = join(dir, 'c.yaml');
      await writeFile(file, configYaml(searchYaml('one', '{every: 1h}')));
      const live = createLiveConfig(await loadConfig({ path: file }), file);
      const names = (): string[] => live.current().searches.map((s) => s.name);
      expect(names()).toEqual(['one']);

      await writeFile(file, configYaml(searchYaml('one', '{every: 1h}') + searchYaml('two', '{every: 2h}')));
      const ok = await live.reload();
      expect(ok.ok).toBe(true);
      expect(names()).toEqual(['one', 'two']);

      await writeFile(file, configYaml(searchYaml('three', '{every: soon}')));
      const refused = await live.reload();
      expect(refused.ok).toBe(false);
      const error = (refused as { error: unknown }).error;
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues[0]).toMatchObject({ file, line: expect.any(Number) as number });
      expect(names()).toEqual(['one', 'two']);
    },
  );

  it('reloads run one at a time, in order: the last file read wins', async () => {
    const order: string[] = [];
    let n = 0;
    const base = { searches: [] } as unknown as Awaited<ReturnType<typeof loadConfig>>;
    const live = createLiveConfig(base, 'x.yaml', async () => {
      const mine = ++n;
      order.push(`start ${mine}`);
      await new Promise((r) => setTimeout(r, mine === 1 ? 30 : 0));
      order.push(`end ${mine}`);
      return { ...base, searches: [{ name: `v${mine}` }] } as unknown as typeof base;
    });
    await Promise.all([live.reload(), live.reload()]);
    expect(order).toEqual(['start 1', 'end 1', 'start 2', 'end 2']);
    expect(live.current().searches[0]?.name).toBe('v2');
  });
});
