import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { redact } from './redact.js';

/**
 * Keys pino replaces whatever their value (a token is not recognisable by its shape; an array of emails is not a
 * string). Everything else is caught on the way out: every finished line passes through the shared redactor.
 * Redaction is the safety net, not the plan: code should not pass secrets or contact details to the logger.
 */
const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'accessToken',
  '*.accessToken',
  'access_token',
  '*.access_token',
  'clientSecret',
  '*.clientSecret',
  'client_secret',
  '*.client_secret',
  'token',
  '*.token',
  'password',
  '*.password',
  'email',
  '*.email',
  'emails',
  '*.emails',
  'phone',
  '*.phone',
  'phones',
  '*.phones',
  'mobile',
  '*.mobile',
  'contacts',
  '*.contacts',
];

export type { Logger };

/**
 * The product's logger: pino JSON, to stdout unless a destination is given (tests capture it). Each serialized line
 * (message, fields, child bindings, error stacks) goes through `redact` once; the redactor keeps JSON intact.
 */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const settings: LoggerOptions = {
    level: process.env.LOG_LEVEL ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...options,
    hooks: {
      ...options.hooks,
      streamWrite: (line: string) => redact(options.hooks?.streamWrite ? options.hooks.streamWrite(line) : line),
    },
  };
  return destination ? pino(settings, destination) : pino(settings);
}

/** A logger that writes nothing; the default for library use and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
