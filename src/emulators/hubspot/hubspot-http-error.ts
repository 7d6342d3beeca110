import { randomUUID } from 'node:crypto';

/** An error answer in HubSpot's shape: `{status: "error", message, correlationId, category, ...}`. */
export class HubSpotHttpError extends Error {
  constructor(
    readonly status: number,
    readonly category: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return {
      status: 'error',
      message: this.message,
      correlationId: randomUUID(),
      category: this.category,
      ...this.extra,
    };
  }
}

export const validationError = (message: string, extra: Record<string, unknown> = {}): HubSpotHttpError =>
  new HubSpotHttpError(400, 'VALIDATION_ERROR', message, extra);

/** One failed record in a 207 answer (StandardError). */
export interface RecordError {
  status: 'error';
  category: string;
  subCategory?: string;
  message: string;
  context: Record<string, string[]>;
  errors: { message: string; code?: string; context?: Record<string, string[]> }[];
  links: Record<string, string>;
}

export function recordError(category: string, message: string, ids: string[], code?: string): RecordError {
  return {
    status: 'error',
    category,
    message,
    context: { ids },
    errors: code === undefined ? [] : [{ message, code }],
    links: {},
  };
}
