/**
 * Packs the partial CRM writes of a run's journeys into full ones. Every partition's walk ends with a batch smaller
 * than a CRM write (its last page or pages): written alone, each costs a whole CRM request (or job) for fewer
 * records. Here such batches wait until batches of other
 * journeys fill a write of exactly `size` records (a batch may be split over two writes); batches of whole writes
 * go at once.
 *
 * A journey waits for its batch (its partition moves in the ledger only after the CRM took all of its records), so
 * it still holds at most one batch unwritten. The writer answers one outcome per record in input order: the
 * outcomes are split back per batch and each batch is committed to the run's ledger with exactly its own outcomes.
 * A journey whose partition's last batch is held (or being written) is done walking: the walk starts another one on the
 * next partition to add to it (held records stay below one write and such a journey fetches nothing ahead, so this
 * costs at most one write of memory), which is what lets a run that needs a single journey (fast API, CRM-bound) still
 * pack its partitions' ends. Held records are
 * written anyway, as a smaller write, when no journey can add (every running one is held here and the walk has
 * no partition to start: a journey whose packed write is in flight comes back, and the walk pokes the packer when
 * a journey ends), when the oldest has waited `maxHoldMs`, and once the walk stops (everything fetched is still
 * written).
 */
import {
  answeredBefore,
  landedAny,
  summarize,
  type AnsweredOutcomes,
  type WriteOutcome,
  type WriteResult,
} from '../../src/crm/index.js';
import type { JourneyPage } from '../../src/source/index.js';

export interface PackerDeps {
  /** Records per full write (the walk's write batch: the sink's preferred size). */
  size: number;
  /** Maps, skips unchanged and upserts records (of one or several batches); one outcome per record, in order. */
  write(records: unknown[]): Promise<WriteResult>;
  /** Where each batch is committed once all of its records were answered (jobs/sync-search/run-ledger.ts). */
  ledger: {
    commit(partition: number, batch: JourneyPage, result: WriteResult): Promise<void>;
    /** What the CRM answered of a batch that will not be committed (its write or commit failed). */
    uncommitted(outcomes: AnsweredOutcomes, batch?: JourneyPage): void;
  };
  /**
   * Whether a journey could still add to what is held: one walking, or one the walk can start. `waiting` journeys
   * cannot: those with a batch held here, and those whose partition's last batch is being written.
   */
  joinable(waiting: number): boolean;
  /** A batch is now held, or a partition's last batch is being written: the walk may start a journey in its place. */
  onHold?(): void;
  /** The walk stops: nothing new will come, write what is held. */
  stopped(): boolean;
  /** One CRM write of `records` took `ms` (the journey controller's write times). */
  onWrite?(records: number, ms: number): void;
  /** Longest a held batch waits for others (its journey's checkpoint waits with it); default 2 s. */
  maxHoldMs?: number;
}

/** One journey's batch waiting here: its records go out from `next` on, answers land at their own index. */
interface Held {
  partition: number;
  page: JourneyPage;
  since: number;
  next: number;
  unanswered: number;
  outcomes: WriteOutcome[];
  finished: boolean;
  /** Its page's figures are in the run's counts though it was not committed (the CRM took some of its records). */
  booked: boolean;
  resolve(): void;
  reject(err: unknown): void;
}

/** A packed write's piece of one batch: records [from, to). */
interface Piece {
  batch: Held;
  from: number;
  to: number;
}

const DEFAULT_MAX_HOLD_MS = 2_000;

export class WritePacker {
  /** Batches with records not yet in a write, oldest first: one per journey (its journey waits for it). */
  private readonly held: Held[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Writes that carried records of more than one batch (for the walk's figures). */
  packedWrites = 0;
  /** Partitions' last batches handed to `write` and not answered yet (held here or being written). */
  private finishing = 0;

  constructor(private readonly deps: PackerDeps) {}

  /**
   * Writes partition `partition`'s batch `page` and commits it: at once when it fills whole writes, else packed
   * with others (a batch of 120 for writes of 100 sends one full write now and holds 20). Resolves once committed.
   */
  async write(partition: number, page: JourneyPage): Promise<void> {
    if (!page.done) return this.pack(partition, page);
    // The journey has nothing more to fetch: the walk may start another in its place (told once the batch is in).
    this.finishing += 1;
    try {
      await this.pack(partition, page);
    } finally {
      this.finishing -= 1;
    }
  }

  private async pack(partition: number, page: JourneyPage): Promise<void> {
    const n = page.records.length;
    if (n % this.deps.size === 0) {
      const written = this.timed(page.records);
      if (page.done) this.deps.onHold?.();
      const result = await written.catch((err: unknown) => {
        this.deps.ledger.uncommitted(answeredBefore(err) ?? [], page);
        throw err;
      });
      await this.deps.ledger.commit(partition, page, result);
      return;
    }
    const done = new Promise<void>((resolve, reject) => {
      this.held.push({
        partition,
        page,
        since: performance.now(),
        next: 0,
        unanswered: n,
        outcomes: new Array<WriteOutcome>(n),
        finished: false,
        booked: false,
        resolve,
        reject,
      });
    });
    this.poke();
    if (this.held.length > 0) this.deps.onHold?.();
    await done;
  }

  /** Journeys done walking: their partition's last batch is held here or being written, nothing more to fetch. */
  get finishedJourneys(): number {
    return this.finishing;
  }

  /** Writes what fills a write, and everything held if no journey can add or the walk stops; re-arms the timer. */
  poke(): void {
    while (this.heldRecords() >= this.deps.size) this.emit();
    if (this.held.length > 0 && (this.deps.stopped() || !this.deps.joinable(this.waiting()))) this.flush();
    this.arm();
  }

  /** Writes everything held now, in writes of at most `size`. */
  flush(): void {
    while (this.held.length > 0) this.emit();
    this.arm();
  }

  /** Clears the timer (the walk ended: nothing is held, every batch's journey waited for it). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Journeys that will not add to what is held: those with a batch held here, and those whose partition's last
   * batch is held or being written (counting the latter as able to add held the run's final remainder until the
   * write before it came back).
   */
  private waiting(): number {
    return this.held.reduce((n, h) => n + (h.page.done ? 0 : 1), 0) + this.finishing;
  }

  private heldRecords(): number {
    return this.held.reduce((n, h) => n + h.page.records.length - h.next, 0);
  }

  /** The oldest held batch is written (with whatever else is held) once it has waited `maxHoldMs`. */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const oldest = this.held[0];
    if (!oldest) return;
    const wait = Math.max(0, oldest.since + (this.deps.maxHoldMs ?? DEFAULT_MAX_HOLD_MS) - performance.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Takes up to `size` held records, oldest batch first, and sends them as one write. */
  private emit(): void {
    const pieces: Piece[] = [];
    let room = this.deps.size;
    while (room > 0 && this.held.length > 0) {
      const batch = this.held[0] as Held;
      const take = Math.min(room, batch.page.records.length - batch.next);
      pieces.push({ batch, from: batch.next, to: batch.next + take });
      batch.next += take;
      room -= take;
      if (batch.next === batch.page.records.length) this.held.shift();
    }
    if (pieces.length > 1) this.packedWrites += 1;
    void this.send(pieces);
  }

  private async send(pieces: Piece[]): Promise<void> {
    let result: WriteResult;
    try {
      result = await this.timed(pieces.flatMap((p) => p.batch.page.records.slice(p.from, p.to)));
    } catch (err) {
      this.keepAnswered(pieces, answeredBefore(err) ?? []);
      for (const p of pieces) this.finish(p.batch, err);
      return;
    }
    let at = 0;
    const answered: Held[] = [];
    for (const { batch, from, to } of pieces) {
      for (let i = from; i < to; i++) batch.outcomes[i] = result.outcomes[at++] as WriteOutcome;
      batch.unanswered -= to - from;
      if (batch.unanswered === 0 && !batch.finished) answered.push(batch);
      // Its other piece's write failed: the batch is not committed, but what the CRM took here is counted.
      else if (batch.finished) this.book(batch, batch.outcomes.slice(from, to));
    }
    await Promise.all(
      answered.map((batch) =>
        this.deps.ledger.commit(batch.partition, batch.page, summarize(batch.outcomes)).then(
          () => this.finish(batch),
          (err: unknown) => this.finish(batch, err),
        ),
      ),
    );
  }

  /**
   * A write failed: what the CRM answered of its batches before (`answered`, by the write's records) or in their
   * earlier writes is counted, though none of them will be committed (a batch that failed before: only this write's).
   */
  private keepAnswered(pieces: Piece[], answered: AnsweredOutcomes): void {
    let at = 0;
    const failing = new Set<Held>();
    for (const { batch, from, to } of pieces) {
      const piece = answered.slice(at, at + to - from);
      piece.forEach((outcome, i) => {
        if (outcome !== undefined) batch.outcomes[from + i] = outcome;
      });
      at += to - from;
      if (batch.finished) this.book(batch, piece);
      else failing.add(batch);
    }
    for (const batch of failing) this.book(batch, batch.outcomes);
  }

  /** Counts `outcomes` of a batch that is not committed, with its page's figures the first time. */
  private book(batch: Held, outcomes: AnsweredOutcomes): void {
    if (!landedAny(outcomes)) return;
    this.deps.ledger.uncommitted(outcomes, batch.booked ? undefined : batch.page);
    batch.booked = true;
  }

  /** The batch's journey goes on (or fails: a batch with a failed piece is not committed, its other pieces dropped). */
  private finish(batch: Held, err?: unknown): void {
    if (batch.finished) return;
    batch.finished = true;
    const index = this.held.indexOf(batch);
    if (index >= 0) this.held.splice(index, 1);
    if (err === undefined) batch.resolve();
    else batch.reject(err);
    // A journey fewer that could add: what is held may have to go now.
    this.poke();
  }

  private async timed(records: unknown[]): Promise<WriteResult> {
    const began = performance.now();
    const result = await this.deps.write(records);
    this.deps.onWrite?.(records.length, performance.now() - began);
    return result;
  }
}
