/**
 * Chaos: a queued run whose worker process is SIGKILLed at random moments, again and again, a new worker process
 * started each time. The run completes and HubSpot holds exactly the expected records with their values, once each.
 * Small in CI; `CHAOS_RECORDS` / `CHAOS_KILLS` make it larger (bench/chaos-kills.ts is the benchmark form).
 */
import { describe, expect, it } from 'vitest';
import { NO_DIFF } from '../helpers/crm-state.js';
import { runKillScenario } from './kill-scenario.js';

const RECORDS = Number(process.env.CHAOS_RECORDS ?? 2_500);
const KILLS = Number(process.env.CHAOS_KILLS ?? 5);

describe('chaos: worker processes SIGKILLed at random moments', () => {
  it(`a queued run survives ${KILLS} SIGKILLs of its worker and leaves the exact CRM state`, async () => {
    const r = await runKillScenario({ companies: RECORDS, kills: KILLS, seed: Number(process.env.CHAOS_SEED ?? 12) });
    console.log(
      `[chaos kills] ${r.kills} kills at fetched=${r.fetchedAtKill.join(',')}; recovery ` +
        `ms ${r.recoveryMs.join(',')}; ` +
        `tokens ${r.tokensCharged} for ${r.records} records (${(r.tokensCharged / r.records).toFixed(3)}); ` +
        `attempts ${r.attemptsStarted}`,
    );
    // every kill happened mid-run (a smaller dataset would let the run end first)
    expect(r.kills).toBe(KILLS);
    expect(r.state).toBe('completed');
    expect(r.attemptsStarted).toBeGreaterThan(KILLS);
    expect(r.diff).toEqual(NO_DIFF);
    // each record counted once: written once (created), or written again after a kill (unchanged when its change hash
    // was saved before the kill, updated when the kill fell between the CRM write and the hash)
    expect((r.run?.created ?? 0) + (r.run?.updated ?? 0) + (r.run?.unchanged ?? 0)).toBe(r.records);
    // what a kill costs: at most what was fetched and not yet checkpointed (a write batch and a prefetched page per
    // journey); nothing is ever paid twice beyond that
    expect(r.tokensCharged).toBeGreaterThanOrEqual(r.records);
    expect(r.tokensCharged - r.records).toBeLessThanOrEqual(r.kills * r.refetchBoundPerKill);
  }, 240_000);
});
