/**
 * The partitions of a run as a stream into its walk (as Airbyte's stream slices): the plan adds them as its split
 * settles them, a journey whose partition had to be split mid-walk puts the pieces back, and the walk takes the
 * largest waiting one whenever it has room for a journey. Items are partition indices of the run's ledger.
 *
 * The stream ends once the plan has nothing more to add, nothing waits and every partition taken was released:
 * until its journey ends, a partition may still come back as pieces.
 */
export class PartitionStream {
  /** Waiting partitions, largest first (by planned count; those without one keep their order at the end). */
  private readonly waiting: number[] = [];
  /** Taken and not yet released (their journeys may still add pieces). */
  private taken = 0;
  private planOpen = true;
  private failure: { error: unknown } | undefined;
  private readonly listeners = new Set<() => void>();

  /** `sizeOf` orders the waiting partitions. */
  constructor(private readonly sizeOf: (index: number) => number) {}

  /** More partitions to walk, in any order (each is placed by its size). */
  add(indices: readonly number[]): void {
    for (const index of indices) {
      const at = this.waiting.findIndex((j) => this.sizeOf(j) < this.sizeOf(index));
      if (at < 0) this.waiting.push(index);
      else this.waiting.splice(at, 0, index);
    }
    this.changed();
  }

  /** A partition taken goes back to the front, to be walked next (released as usual by its journey). */
  retry(index: number): void {
    this.waiting.unshift(index);
    this.changed();
  }

  /** The plan adds nothing more. */
  planDone(): void {
    this.planOpen = false;
    this.changed();
  }

  /** The plan failed: `take` throws `error` (the run ends with it). */
  planFailed(error: unknown): void {
    this.failure = { error };
    this.planDone();
  }

  /** The journey of a partition taken ended (its pieces, if it was split, were added before). */
  release(): void {
    this.taken -= 1;
    this.changed();
  }

  /** Whether the plan may still add partitions (what is left of the run is not known yet). */
  get planning(): boolean {
    return this.planOpen;
  }

  /** Partitions waiting to be taken. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  /**
   * The partitions to walk, largest waiting first, each as the walk asks for it; ends with the stream, or when
   * `signal` aborts (the walk stopped). Throws the plan's error.
   */
  async *take(signal: AbortSignal): AsyncGenerator<number> {
    for (;;) {
      if (signal.aborted) return;
      if (this.failure) throw this.failure.error;
      const next = this.waiting.shift();
      if (next !== undefined) {
        this.taken += 1;
        yield next;
      } else if (!this.planOpen && this.taken === 0) {
        return;
      } else {
        await this.change(signal);
      }
    }
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  /** Resolves at the stream's next change, or when `signal` aborts. */
  private change(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.listeners.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.listeners.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
