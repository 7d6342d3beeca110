/**
 * How many turns of the event loop pass while `work` runs: a chain of setImmediate callbacks counts one per turn, so
 * work that never gives the loop a turn counts 0, whatever the machine's speed (no time is measured).
 */
export async function turnsWhile<T>(work: () => Promise<T> | T): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = (): void => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  done = true;
  return { result, turns };
}

/** A clock for `Turns` that moves `stepMs` on every reading: every slice has used its time at the next pause. */
export function racingClock(stepMs: number): () => number {
  let now = 0;
  return () => (now += stepMs);
}
