import { groupLabel } from '../crm/reject-groups.js';
import { whenIn } from '../shared/when.js';
import type { RunSummary } from './run-summary.js';

/** Human lines for one run summary (`run` without --json, `runs`). Counts only: nothing secret or personal. */
/** `timeZone`: where the run's times are shown beside UTC (its search's schedule, else the config's). */
export function formatSummary(s: RunSummary, timeZone?: string): string {
  const lines = [
    `${s.search}: ${s.status}${s.stopReason ? ` (${s.stopReason})` : ''}` +
      `${s.limitedBy ? ` (limited by ${s.limitedBy})` : ''}${s.dryRun ? ' [dry run]' : ''}  ` +
      `run ${s.runId}  ${s.startedAt}  ${(s.durationMs / 1000).toFixed(1)}s`,
    `  counted ${s.counted}  fetched ${s.fetched}  unique ${s.unique}  partitions ${s.partitions}`,
    `  created ${s.created}  updated ${s.updated}  unchanged ${s.unchanged}  ` +
      `rejected ${s.rejected}` +
      `${s.links ? `  linked ${s.links.company.linked}  link failed ${s.links.company.linkFailed}` : ''}`,
    `  tokens ${s.tokensSpent}  credits ${s.creditsSpent}  requests search ${s.requests.search} / ` +
      `count ${s.requests.count}  throttled ${s.throttled}`,
  ];
  if (s.personsRevealed !== undefined) {
    lines.push(
      `  revealed ${s.personsRevealed}  already revealed (no ` +
        `credit) ${s.revealSkipped ?? 0}` +
        `${s.revealFallback ? '  (a re-sent cursor was refused: whole pages revealed)' : ''}`,
    );
  }
  if (s.revealForecast) {
    const f = s.revealForecast;
    const from = f.from === 'sample' ? 'from a sample: its walked persons only' : 'from the reveal store';
    lines.push(
      `  a real run would reveal ${f.credits} (${f.credits} credits)  already revealed (no credit) ${f.revealSkipped}` +
        `  [${from}]`,
    );
  }
  if (s.suppressed !== undefined) lines.push(`  suppressed ${s.suppressed} (never written; suppress:)`);
  if (s.entered !== undefined)
    lines.push(
      `  entered ${s.entered}  left ${s.left ?? 0}  leave actions ${s.leaveActions ?? 0}  leavers ` +
        `pending ${s.leaversPending ?? 0}${listPart(s)}`,
    );
  if (s.refresh) lines.push(`  refresh changed  ${refreshPart(s.refresh)}`);
  if (s.tokensSpentPerRecord !== undefined) lines.push(`  tokens per record landed ${s.tokensSpentPerRecord}`);
  if (s.warnings?.groups)
    lines.push(
      `  warnings ${s.warnings.count}, by code and field:`,
      ...s.warnings.groups.map((g) => `    ${g.count} x ${groupLabel(g)}, e.g. ${g.example}`),
    );
  else if (s.warnings)
    lines.push(`  warnings ${s.warnings.count}:`, ...s.warnings.first.map((reason) => `    ${reason}`));
  if (s.resumeAt)
    lines.push(
      `  resumes after the budget resets at ${timeZone ? whenIn(Date.parse(s.resumeAt), timeZone) : s.resumeAt}`,
    );
  if (s.error) lines.push(`  ${s.error.code}: ${s.error.message}`);
  return lines.join('\n');
}

/** A search with `list:`: its list's adds and removes. */
function listPart(s: RunSummary): string {
  return s.listAdded === undefined ? '' : `  list added ${s.listAdded}  list removed ${s.listRemoved ?? 0}`;
}

/** Refresh mode `changed`: what the run walked of the search, and what a full walk would have cost. */
function refreshPart(r: NonNullable<RunSummary['refresh']>): string {
  const walked = r.walked.changed + r.walked.new + r.walked.stale;
  return (
    `kept ${r.kept}  walked ${walked} (changed ${r.walked.changed}, new ${r.walked.new}, ` +
    `stale ${r.walked.stale})  skipped ${r.skipped}${r.held ? `  held ${r.held}` : ''}  counts ${r.counts}  full ` +
    `walk ${r.fullTokens} tokens${r.rebuilt ? `  (new split: ${r.rebuilt})` : ''}`
  );
}

/** One line per run, newest first, for `runs <search>`. */
export function formatRunLine(s: RunSummary): string {
  return [
    s.finishedAt,
    s.status.padEnd(9),
    // A dry run wrote nothing: its figures are what a run would have done.
    s.dryRun ? 'DRY RUN (nothing written)' : '',
    `fetched ${s.fetched}`,
    `created ${s.created}`,
    `updated ${s.updated}`,
    `unchanged ${s.unchanged}`,
    `rejected ${s.rejected}`,
    `tokens ${s.tokensSpent}`,
    `credits ${s.creditsSpent}`,
    s.links ? `linked ${s.links.company.linked}  link failed ${s.links.company.linkFailed}` : '',
    s.personsRevealed !== undefined ? `revealed ${s.personsRevealed}` : '',
    s.refresh
      ? `refresh walked ${s.refresh.walked.changed + s.refresh.walked.new + s.refresh.walked.stale} ` +
        `skipped ${s.refresh.skipped} of full ${s.refresh.fullTokens}`
      : '',
    s.entered !== undefined
      ? `entered ${s.entered}  left ${s.left ?? 0}  leave ` +
        `actions ${s.leaveActions ?? 0}${s.leaversPending ? `  leavers pending ${s.leaversPending}` : ''}` +
        `${listPart(s)}`
      : '',
    s.revealSkipped ? `reveal skipped ${s.revealSkipped}` : '',
    `${(s.durationMs / 1000).toFixed(1)}s`,
    s.stopReason ?? '',
    s.limitedBy ? `limited by ${s.limitedBy}` : '',
    s.warnings ? `warnings ${s.warnings.count}` : '',
    s.error ? `${s.error.code}` : '',
  ]
    .filter((part) => part !== '')
    .join('  ');
}
