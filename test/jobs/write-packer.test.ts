/**
 * The write packer's own rules (jobs/sync-search/write-packer.ts), with a writer that answers in memory: batches of
 * any size, including larger than a write and not a multiple of it, leave in writes of at most `size` records; every
 * record is written once and each batch is booked once with exactly its own outcomes. The packer with the real
 * HubSpot emulator and a whole run is test/jobs/write-packing.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { WritePacker } from '../../jobs/sync-search/write-packer.js';
import { summarize, type WriteOutcome, type WriteResult } from '../../src/crm/index.js';
import { withAnswered } from '../../src/crm/write-result.js';
import type { JourneyPage } from '../../src/source/index.js';

const idOf = (r: unknown): string => (r as { id: string }).id;

function page(prefix: string, n: number): JourneyPage {
  const records = Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}` }));
  return {
    records,
    returned: n,
    duplicates: 0,
    tokensCharged: n,
    creditsCharged: 0,
    restarted: false,
    done: true,
    checkpoint: {} as JourneyPage['checkpoint'],
  };
}

/** A packer over an in-memory writer: ids ending in 7 are rejected; writes and bookings are recorded. */
function harness(size: number, running: () => number, maxHoldMs = 10_000) {
  const writes: string[][] = [];
  const booked = new Map<JourneyPage, WriteResult>();
  const partitionOf = new Map<JourneyPage, number>();
  const packer = new WritePacker({
    size,
    maxHoldMs,
    write: async (records) => {
      const ids = records.map(idOf);
      writes.push(ids);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return summarize(
        ids.map((key): WriteOutcome =>
          key.endsWith('7')
            ? ({ key, status: 'rejected', reason: 'bad' } as WriteOutcome)
            : ({ key, status: 'created', crmId: `c-${key}` } as WriteOutcome),
        ),
      );
    },
    ledger: {
      commit: async (partition: number, p: JourneyPage, result: WriteResult) => {
        expect(booked.has(p)).toBe(false);
        booked.set(p, result);
        partitionOf.set(p, partition);
      },
      uncommitted: () => undefined,
    },
    // the journeys running now, none of them startable: a held batch can be joined while another one walks
    joinable: (held) => running() > held,
    stopped: () => false,
  });
  return { packer, writes, booked, partitionOf };
}

describe('write packer', () => {
  it(
    'a batch larger than a write and not a multiple of it goes out as full writes plus a packed ' + 'remainder',
    async () => {
      // three journeys, each gone once its batch is booked
      let running = 3;
      const h = harness(100, () => running);
      const big = page('a', 250);
      const small = page('b', 30);
      const other = page('c', 40);
      const write = (partition: number, p: JourneyPage) =>
        h.packer.write(partition, p).finally(() => {
          running -= 1;
          h.packer.poke();
        });
      await Promise.all([write(0, big), write(1, small), write(2, other)]);
      h.packer.close();

      // 320 records: three writes of 100, then the last 20 once no other journey could add to them
      expect(h.writes.map((w) => w.length)).toEqual([100, 100, 100, 20]);
      const all = h.writes.flat();
      expect(new Set(all).size).toBe(320);
      expect(all.sort()).toEqual([...big.records, ...small.records, ...other.records].map(idOf).sort());
      // a packed write carried records of more than one batch
      expect(h.writes.some((w) => new Set(w.map((id) => id[0])).size > 1)).toBe(true);

      // each batch committed once, to its own partition, with its own outcomes, in its own record order
      expect([big, small, other].map((p) => h.partitionOf.get(p))).toEqual([0, 1, 2]);
      for (const p of [big, small, other]) {
        const result = h.booked.get(p);
        expect(result?.outcomes.map((o) => o.key)).toEqual(p.records.map(idOf));
        const rejected = p.records.filter((r) => idOf(r).endsWith('7')).length;
        expect(result).toMatchObject({ rejected, created: p.records.length - rejected });
      }
    },
  );

  it('holds a partial batch while other journeys may add, and writes it once they cannot', async () => {
    let running = 2;
    const h = harness(100, () => running);
    const first = page('a', 130);
    let firstDone = false;
    const pending = h.packer.write(0, first).then(() => {
      firstDone = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    // the full 100 left at once; 30 wait for the other journey
    expect(h.writes.map((w) => w.length)).toEqual([100]);
    expect(firstDone).toBe(false);
    running = 1; // the other journey ended
    h.packer.poke();
    await pending;
    h.packer.close();
    expect(h.writes.map((w) => w.length)).toEqual([100, 30]);
    expect(h.booked.get(first)?.outcomes).toHaveLength(130);
  });

  it(
    'a run walking one journey still packs: a held last batch lets the walk start the next partition instead of a ' +
      'small write',
    async () => {
      // one journey at a time (the sizing asked for 1), four partitions of 40 records each, started as batches are held
      const partitions = ['a', 'b', 'c', 'd'].map((p) => page(p, 40));
      const queue = [...partitions];
      const writes: number[] = [];
      const started: string[] = [];
      let running = 0;
      let holds = 0;
      const journeys: Promise<void>[] = [];
      const packer: WritePacker = new WritePacker({
        size: 100,
        maxHoldMs: 10_000,
        write: async (records) => {
          writes.push(records.length);
          return summarize(records.map((r) => ({ key: idOf(r), status: 'created', crmId: 'x' }) as WriteOutcome));
        },
        ledger: { commit: async () => undefined, uncommitted: () => undefined },
        joinable: (held) => running > held || (queue.length > 0 && running - packer.finishedJourneys < 1),
        onHold: () => {
          holds += 1;
          startNext();
        },
        stopped: () => false,
      });
      function startNext(): void {
        const next = queue.shift();
        if (!next) return;
        running += 1;
        started.push(idOf(next.records[0]));
        journeys.push(
          packer.write(0, next).finally(() => {
            running -= 1;
            packer.poke();
          }),
        );
      }
      startNext();
      // settles once every started journey's batch was written (a journey never started would leave `started` short)
      for (let seen = 0; seen < journeys.length; seen = journeys.length) await Promise.all([...journeys]);
      packer.close();
      // 160 records: one full write of 100 packed from three partitions, then the last 60 once no journey could add
      expect(started).toEqual(['a0', 'b0', 'c0', 'd0']);
      expect(writes).toEqual([100, 60]);
      expect(packer.packedWrites).toBe(2);
      expect(holds).toBeGreaterThanOrEqual(3);
    },
  );

  it(
    'the remainder of the last batches goes at once, next to the write that carries the rest, not after ' + 'it',
    async () => {
      // two journeys ending: a's 60 wait; b's 90 fill a write with them (a's 60 + b's first 40) and leave 50. Neither
      // journey can add any more (a's last batch is being written), so the 50 go now, not once that write came back.
      const writes: number[] = [];
      let release: () => void = () => undefined;
      const firstBack = new Promise<void>((resolve) => {
        release = resolve;
      });
      let running = 2;
      const packer = new WritePacker({
        size: 100,
        maxHoldMs: 10_000,
        write: async (records) => {
          writes.push(records.length);
          if (writes.length === 1) await firstBack;
          return summarize(records.map((r) => ({ key: idOf(r), status: 'created', crmId: 'x' }) as WriteOutcome));
        },
        ledger: { commit: async () => undefined, uncommitted: () => undefined },
        joinable: (waiting) => running > waiting,
        stopped: () => false,
      });
      const end = (p: JourneyPage) =>
        packer.write(0, p).finally(() => {
          running -= 1;
          packer.poke();
        });
      const a = end(page('a', 60));
      const b = end(page('b', 90));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(writes).toEqual([100, 50]);
      expect(packer.finishedJourneys).toBe(2);
      release();
      await Promise.all([a, b]);
      packer.close();
      expect(packer.finishedJourneys).toBe(0);
    },
  );

  it('a failed write fails every batch with a piece in it, and no batch is booked twice or half', async () => {
    const { writes, results, booked } = await writesFail((n) => (n === 2 ? new Error('crm down') : undefined));
    // write 1: a[0..100); write 2 (fails): a[100..150) + b[0..50): both batches fail, neither is booked
    expect(writes.slice(0, 2)).toEqual([100, 100]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(booked).toEqual([]);
  });

  it('a write that fails after the CRM took records: every record taken is counted, each page once', async () => {
    // write 2: the CRM took its first 70 records, then Redis refused what follows (the writer's error)
    const { results, uncommitted, a, b } = await writesFail((n, outcomes) =>
      n === 2 ? withAnswered(new Error('OOM command not allowed'), outcomes.slice(0, 70)) : undefined,
    );
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // a: 100 in write 1 and 50 in write 2; b: 20 of its 50 in write 2, its last 10 in write 3
    expect(uncommitted.reduce((n, u) => n + u.created, 0)).toBe(180);
    const pages = uncommitted.flatMap((u) => (u.page ? [u.page] : []));
    expect(pages.sort((x, y) => x.returned - y.returned)).toEqual([b, a]);
  });

  it('a batch failed by one write still counts what a later write of its records had the CRM take', async () => {
    // write 2 fails with nothing taken (b fails); write 3, b's last 10, fails after the CRM took all of them
    const { uncommitted, a, b } = await writesFail((n, outcomes) =>
      n === 2
        ? new Error('crm down')
        : n === 3
          ? withAnswered(new Error('Connection is closed.'), outcomes)
          : undefined,
    );
    expect(uncommitted.reduce((n, u) => n + u.created, 0)).toBe(110);
    const pages = uncommitted.flatMap((u) => (u.page ? [u.page] : []));
    expect(pages.sort((x, y) => x.returned - y.returned)).toEqual([b, a]);
  });
});

/**
 * Batches a (150 records) and b (60) through writes of 100 where write n throws `failure(n, its outcomes)` unless
 * that is undefined: the writes' sizes, each batch's ending, the batches committed and what was counted uncommitted.
 */
async function writesFail(failure: (n: number, outcomes: WriteOutcome[]) => unknown) {
  const writes: number[] = [];
  const booked: JourneyPage[] = [];
  const uncommitted: { created: number; page?: JourneyPage }[] = [];
  const packer = new WritePacker({
    size: 100,
    write: async (records) => {
      writes.push(records.length);
      const outcomes = records.map((r) => ({ key: idOf(r), status: 'created', crmId: 'x' }) as WriteOutcome);
      const err = failure(writes.length, outcomes);
      if (err !== undefined) throw err;
      return summarize(outcomes);
    },
    ledger: {
      commit: async (_partition: number, p: JourneyPage) => {
        booked.push(p);
      },
      uncommitted: (outcomes, p) =>
        uncommitted.push({
          created: outcomes.filter((o) => o?.status === 'created').length,
          ...(p ? { page: p } : {}),
        }),
    },
    joinable: (held) => 2 > held,
    stopped: () => false,
  });
  const a = page('a', 150);
  const b = page('b', 60);
  const results = await Promise.allSettled([packer.write(0, a), packer.write(0, b)]);
  packer.close();
  return { writes, results, booked, uncommitted, a, b };
}
