/** What a run reports as it goes (counts only). */
export interface RunProgress {
  /** Records fetched so far and the planned total. */
  fetched: number;
  target: number;
  tokensSpent: number;
  creditsSpent: number;
  elapsedMs: number;
}

export interface ProgressBar {
  update(p: RunProgress): void;
  done(): void;
}

const WIDTH = 24;

function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** One line of the bar, e.g. `[#####-----] 1200/5000 records  tokens 1200  credits 0  ETA 1m20s`. */
export function renderProgress(p: RunProgress): string {
  const ratio = p.target > 0 ? Math.min(1, p.fetched / p.target) : 0;
  const filled = Math.round(ratio * WIDTH);
  const eta =
    p.fetched > 0 && p.target > p.fetched ? formatDuration((p.elapsedMs / p.fetched) * (p.target - p.fetched)) : '-';
  return (
    `[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${p.fetched}/${p.target} records  ` +
    `tokens ${p.tokensSpent}  credits ${p.creditsSpent}  ETA ${eta}`
  );
}

/**
 * A progress bar redrawn in place on a TTY (at most ~10 times a second); silent on anything else so piped
 * output and CI logs stay clean.
 */
export function createProgressBar(stream: NodeJS.WriteStream = process.stderr, minIntervalMs = 100): ProgressBar {
  if (!stream.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  let drawn = false;
  let latest: RunProgress | null = null;
  const draw = (): void => {
    if (!latest) return;
    stream.write(`\r${renderProgress(latest)}\x1b[K`);
    drawn = true;
  };
  return {
    update(p) {
      latest = p;
      const now = Date.now();
      if (now - last < minIntervalMs) return;
      last = now;
      draw();
    },
    done() {
      draw();
      if (drawn) stream.write('\n');
    },
  };
}
