import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/**
 * Paths pino removes from every log line. Secrets and contact details must never be logged; redaction is the
 * safety net, not the plan: code should not pass them to the logger in the first place.
 */
export const REDACTED_PATHS = [
  'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization',
  'accessToken', '*.accessToken', 'access_token', '*.access_token',
  'clientSecret', '*.clientSecret', 'client_secret', '*.client_secret',
  'token', '*.token', 'password', '*.password',
  'email', '*.email', 'emails', '*.emails', 'phone', '*.phone', 'phones', '*.phones', 'mobile', '*.mobile',
  'contacts', '*.contacts',
];

export type { Logger };

/** The product's logger: pino JSON with redaction, to stdout unless a destination is given (tests capture it). */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const settings: LoggerOptions = {
    level: process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...options,
  };
  return destination ? pino(settings, destination) : pino(settings);
}

/** A logger that writes nothing; the default for library use and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
