/**
 * A simulated wall clock for this process: `Date.now()` and `new Date()` answer the real time plus an offset that
 * only moves forward, between runs (`advanceTo`), so a compressed period passes for the worker's schedules, ages and
 * pacing while time within a run flows at the real rate. Timers and `performance.now()` stay real; so does Redis TIME.
 */
const RealDate = Date;

export interface SimulatedClock {
  /** The real wall clock (epoch ms), for what must not be simulated. */
  real(): number;
  now(): number;
  /** Moves the clock to `at` (epoch ms) unless it is past it already. */
  advanceTo(at: number): void;
  uninstall(): void;
}

export function installSimulatedClock(startAt: number): SimulatedClock {
  let offset = startAt - RealDate.now();
  class SimulatedDate extends RealDate {
    constructor(...args: [] | [string | number | Date] | [number, number, ...number[]]) {
      if (args.length === 0) super(RealDate.now() + offset);
      else if (args.length === 1) super(args[0]);
      else super(...(args as [number, number, number?, number?, number?, number?, number?]));
    }

    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = SimulatedDate as DateConstructor;
  return {
    real: () => RealDate.now(),
    now: () => RealDate.now() + offset,
    advanceTo: (at) => {
      offset = Math.max(offset, at - RealDate.now());
    },
    uninstall: () => {
      globalThis.Date = RealDate;
    },
  };
}
