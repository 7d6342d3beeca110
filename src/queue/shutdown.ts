import type { Logger } from '../shared/logger.js';

export interface ShutdownOptions {
  logger: Logger;
  /** Hard stop after this long, so the process always exits within its orchestrator's grace period (30 s). */
  forceAfterMs?: number;
  exit?: (code: number) => void;
}

/**
 * SIGTERM / SIGINT: run `stop` once, then exit 0 (or the code a failure that asked for the stop set first). A second
 * signal, a failing `stop` or the force timer exits 1.
 */
export function exitOnSignals(stop: () => Promise<void>, opts: ShutdownOptions): void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      opts.logger.warn({ signal }, 'second signal: exiting now');
      exit(1);
      return;
    }
    stopping = true;
    opts.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      opts.logger.error('shutdown took too long: forcing exit');
      exit(1);
    }, opts.forceAfterMs ?? 28_000);
    force.unref();
    stop().then(
      () => {
        clearTimeout(force);
        opts.logger.info('shutdown complete');
        exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      },
      (err: unknown) => {
        clearTimeout(force);
        opts.logger.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
