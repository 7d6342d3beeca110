/**
 * Every request a HubSpot emulator answered, with its answer, handed to listeners while any is registered (the
 * contract tests check them against HubSpot's published specs: test/contracts/). No listener: nothing is kept.
 */
export interface HubSpotExchange {
  method: string;
  /** The request path without the query. */
  path: string;
  query: string;
  /** The parsed JSON body; `requestRead` false when the emulator answered before reading it (401, 429, 5xx). */
  requestBody: unknown;
  requestRead: boolean;
  status: number;
  responseBody: unknown;
}

const listeners = new Set<(exchange: HubSpotExchange) => void>();

/** Hands every exchange of every emulator in this process to `listener` until the returned function is called. */
export function onHubSpotExchange(listener: (exchange: HubSpotExchange) => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

export function emitExchange(exchange: HubSpotExchange): void {
  for (const listener of listeners) listener(exchange);
}
