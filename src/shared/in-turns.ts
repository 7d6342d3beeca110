/**
 * Long synchronous work cut into turns of the event loop by time, not by count: a slice ends once it has used its
 * time, whatever its steps cost (a table row, a search's forecast, a parsed value), so other requests and the probes
 * (/healthz) wait for one slice at most, on an idle machine as on a loaded one where every step takes longer.
 */
import { performance } from 'node:perf_hooks';

/** The time a slice may use before the work gives the event loop a turn (ms). */
export const TURN_MS = 10;

/** A clock in ms; `performance.now` unless a test drives it. */
export type TurnClock = () => number;

/**
 * The slices of one piece of work (one request's render): `pause()` after each step gives the event loop a turn
 * once the slice has used `sliceMs`. Shared across the phases of a render so that one slice never spans two phases'
 * budgets.
 */
export class Turns {
  private sliceStart: number;
  /** Turns given so far. */
  given = 0;

  constructor(
    private readonly sliceMs: number = TURN_MS,
    private readonly now: TurnClock = () => performance.now(),
  ) {
    this.sliceStart = now();
  }

  /** Gives the event loop a turn (I/O, timers, other requests) when the slice has used its time; else goes on. */
  async pause(): Promise<void> {
    if (this.now() - this.sliceStart < this.sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.given++;
    this.sliceStart = this.now();
  }
}

/** Runs `steps` (a generator yielding between its steps) to its end, pausing after each step. */
export async function inTurns<T>(steps: Generator<unknown, T>, turns: Turns = new Turns()): Promise<T> {
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await turns.pause();
  }
}

/** Runs `steps` to its end at once: for callers that share no event loop while they wait (the CLI, alert rules). */
export function atOnce<T>(steps: Generator<unknown, T>): T {
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}
