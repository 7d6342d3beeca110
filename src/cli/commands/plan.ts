/**
 * `plan <search> [--json]`: what a run would cost, from the free count: pages, tokens, credits, partitions and the
 * estimated time, against the budget left. Spends no search tokens and no credits. Exit 0, 2 config error.
 */
import { randomUUID } from 'node:crypto';
import { openSource, planRun, resolveSearch, type RunPlan } from '../../../jobs/sync-search/index.js';
import { silentLogger } from '../../shared/logger.js';
import { nounCount } from '../../shared/noun-count.js';
import { openSearchCommand, printJson, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';

function duration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}min` : `${(s / 3600).toFixed(1)}h`;
}

function render(plan: RunPlan, balance: { remaining: number; resetAt: number } | null): string {
  const n = (v: number | null): string => (v === null ? 'unknown (no search made yet this period)' : String(v));
  const lines = [
    `plan for ${plan.search} (${plan.entity})`,
    `  matches      ${plan.counted}${plan.target < plan.counted ? `  (this run takes ${plan.target}: maxRecords)` : ''}`,
    `  pages        ${plan.pages} of up to ${plan.pageSize} records`,
    `  partitions   ${plan.partitions.length}, largest first (${nounCount(plan.countRequests, 'count request')}); ${nounCount(plan.parallelism, 'journey')} at first, re-sized during the run (at most ${plan.maxParallelism})`,
    `  tokens       ${plan.tokensNeeded} needed, ${n(plan.tokensSpendable)} may be spent${balance ? ` (balance ${balance.remaining}, resets ${new Date(balance.resetAt).toISOString()})` : ''}`,
    `  credits      ${plan.creditsNeeded} needed${plan.creditsNeeded > 0 ? `, ${plan.creditsSpendable ?? 'no cap'} may be spent` : ''}`,
    `  forecast     ${plan.forecastCredits} credits, ${plan.forecastTokens} tokens${plan.forecastRevealSkipped > 0 ? ` (${plan.forecastRevealSkipped} persons already revealed: no credit)` : ''}  [${plan.forecastMethod}]`,
    `  time         ~${duration(plan.estimatedMs)} at ${plan.rate.requests} searches per ${plan.rate.windowSeconds}s (${plan.rate.source === 'headers' ? 'learned from the API' : 'configured fallback'})`,
    plan.shortfall ? `  budget       NOT enough ${plan.shortfall}: a run stops at ${plan.bindingCap ?? 'the cap'} (partial), or is refused with onShortfall: refuse` : '  budget       enough for the whole run',
  ];
  return lines.join('\n');
}

/** Errors (a refused secret, an invalid filter) are thrown and reported by the program (exit 2 or 1). */
export async function runCommand(name: string, opts: ConfigOption & JsonOption): Promise<number> {
  const cmd = await openSearchCommand(name, opts.config);
  const source = openSource(cmd.config, cmd.redis, cmd.prefix, silentLogger);
  try {
    const resolved = resolveSearch(cmd.config, cmd.search);
    const plan = await planRun(source, cmd.config, resolved, { runId: `plan-${randomUUID()}` });
    const balance = await source.ledger.tokenBalance();
    if (opts.json) {
      printJson({ ...plan, partitions: plan.partitions.map((p) => ({ count: p.count, headcount: p.headcount })), tokenBalance: balance });
    } else process.stdout.write(`${render(plan, balance)}\n`);
    return EXIT.ok;
  } finally {
    await source.close();
    cmd.close();
  }
}
