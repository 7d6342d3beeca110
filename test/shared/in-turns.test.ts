/** Work cut into turns of the event loop by the time its slices use, not by their count of steps. */
import { describe, expect, it } from 'vitest';
import { atOnce, inTurns, Turns } from '../../src/shared/in-turns.js';
import { turnsWhile } from '../helpers/event-loop-turns.js';

/** `steps` steps, each moving the clock by `costMs` (what the step took). */
function* costly(steps: number, clock: { now: number }, costMs: number): Generator<void, number> {
  for (let i = 0; i < steps; i++) {
    clock.now += costMs;
    yield;
  }
  return steps;
}

async function sliced(steps: number, costMs: number): Promise<{ given: number; turns: number }> {
  const clock = { now: 0 };
  const turns = new Turns(10, () => clock.now);
  const { result, turns: seen } = await turnsWhile(() => inTurns(costly(steps, clock, costMs), turns));
  expect(result).toBe(steps);
  return { given: turns.given, turns: seen };
}

describe('in turns', () => {
  it('ends a slice once it has used its time: after each step that takes longer, after a few short ones', async () => {
    // 12 steps of 30 ms: a turn after each; of 4 ms: after the 3rd, 6th, 9th and 12th (12 ms used); of 0: none.
    expect(await sliced(12, 30)).toEqual({ given: 12, turns: 12 });
    expect(await sliced(12, 4)).toEqual({ given: 4, turns: 4 });
    expect(await sliced(12, 0)).toEqual({ given: 0, turns: 0 });
  });

  it('runs the same steps at once for a caller that shares no event loop', async () => {
    const clock = { now: 0 };
    const { result, turns } = await turnsWhile(() => atOnce(costly(5, clock, 30)));
    expect([result, turns, clock.now]).toEqual([5, 0, 150]);
  });
});
