/**
 * The run ledger (jobs/sync-search/run-ledger.ts): one `commit` per batch the CRM answered books counters, warnings
 * (redacted) and link errors, moves that partition's journey and saves the checkpoint; splitting a partition and a
 * dry run go through it too. Real Redis checkpoint store, real source client against the emulator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RunLedger } from '../../jobs/sync-search/run-ledger.js';
import type { RunPlan } from '../../jobs/sync-search/plan-run.js';
import { summarize, type WriteOutcome } from '../../src/crm/index.js';
import { CheckpointStore } from '../../src/runs/checkpoint-store.js';
import type { RunProgress } from '../../src/runs/progress-bar.js';
import type { JourneyCheckpoint, JourneyPage } from '../../src/source/index.js';
import { sourceFixture, type SourceFixture } from '../source/source-fixture.js';

let fx: SourceFixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const plan = {
  counted: 500,
  target: 500,
  partitions: [
    { filter: { a: 1 }, count: 300 },
    { filter: { a: 2 }, count: 200 },
  ],
} as unknown as RunPlan;

const state = (fetched: number): JourneyCheckpoint => ({
  mode: 'cursor',
  cursor: `c${fetched}`,
  offset: 0,
  fetched,
  fingerprint: 'f',
});

function batch(ids: string[], returned: number, done = false): JourneyPage {
  return {
    records: ids.map((id) => ({ id })),
    returned,
    duplicates: returned - ids.length,
    checkpoint: state(returned),
    tokensCharged: returned,
    creditsCharged: 0,
    restarted: false,
    done,
  };
}

async function ledgerOver(dryRun = false) {
  fx = await sourceFixture();
  const store = new CheckpointStore<JourneyCheckpoint>(fx.redis, 'ledger-test', { prefix: fx.prefix });
  const progress: RunProgress[] = [];
  const ledger = new RunLedger({
    store,
    source: fx.client,
    resumed: null,
    started: Date.now(),
    startedAt: new Date().toISOString(),
    request: { runId: 'run-1', dryRun, onProgress: (p) => progress.push(p) },
  });
  ledger.begin(plan, true);
  return { ledger, store, progress };
}

describe('the run ledger', () => {
  it('one commit books counters, warnings and link errors, moves that partition and saves', async () => {
    const { ledger, store, progress } = await ledgerOver();
    const outcomes: WriteOutcome[] = [
      { key: 'a', status: 'created', crmId: '1' },
      { key: 'b', status: 'updated', crmId: '2', linkError: 'company not found' },
      { key: 'c', status: 'rejected', code: 'INVALID', reason: 'bad email jane.doe@example.com' },
    ] as WriteOutcome[];
    await ledger.commit(1, batch(['a', 'b', 'c'], 4), summarize(outcomes));

    const saved = await store.load('run-1');
    expect(saved?.partitions[1]).toMatchObject({ filter: { a: 2 }, count: 200, state: state(4), done: false });
    expect(saved?.partitions[0]).toMatchObject({ state: null, done: false });
    expect(saved?.counts).toMatchObject({ fetched: 4, unique: 3, created: 1, updated: 1, rejected: 1, tokensSpent: 4 });
    expect(saved?.linkErrors).toBe(1);
    expect(saved?.warnings?.count).toBe(2);
    expect(JSON.stringify(saved?.warnings)).not.toContain('jane.doe@example.com');
    expect(progress.at(-1)).toMatchObject({ fetched: 4, target: 500 });

    // the partition's last batch: walked to its end, no journey state kept
    await ledger.commit(1, batch(['d'], 1, true), summarize([{ key: 'd', status: 'unchanged' }]));
    expect((await store.load('run-1'))?.partitions[1]).toMatchObject({ state: null, done: true });
    expect(ledger.unwalked()).toEqual([0]);
    expect(ledger.counts()).toMatchObject({ fetched: 5, unchanged: 1 });
  });

  it('a partition split mid-walk is done, its pieces are added (saved) with new indices to walk', async () => {
    const { ledger, store } = await ledgerOver();
    expect(
      await ledger.replace(0, [
        { a: 1, b: 1 },
        { a: 1, b: 2 },
      ]),
    ).toEqual([2, 3]);
    const saved = await store.load('run-1');
    expect(saved?.partitions.map((p) => [p.filter, p.done])).toEqual([
      [{ a: 1 }, true],
      [{ a: 2 }, false],
      [{ a: 1, b: 1 }, false],
      [{ a: 1, b: 2 }, false],
    ]);
    expect(ledger.unwalked()).toEqual([1, 2, 3]);
  });

  it('a dry run counts what it would write and saves nothing', async () => {
    const { ledger, store } = await ledgerOver(true);
    await ledger.commit(0, batch(['a'], 1), summarize([{ key: 'a', status: 'created', crmId: '' } as WriteOutcome]));
    expect(ledger.counts()).toMatchObject({ fetched: 1, created: 1 });
    expect(await store.load('run-1')).toBeNull();
  });
});
