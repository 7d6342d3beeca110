/** Switches tests flip at any time to make the emulator misbehave. */
export interface HubSpotFaults {
  /** Delay before every answer. */
  latencyMs: number;
  /** The next N requests answer 502 (then normal again). */
  fail5xxNext: number;
  /** Share (0..1) of requests answering 503, drawn at random. */
  fail5xxRate: number;
  /** The next N requests answer 429 TEN_SECONDLY_ROLLING whatever the window says. */
  force429Next: number;
  /**
   * Records to refuse: an input whose id or any property value is listed. `record` answers 207 with a per-record
   * VALIDATION_ERROR; `batch` fails the whole batch with 400 (as HubSpot does for some invalid values).
   */
  reject: { values: Set<string>; mode: 'record' | 'batch' };
  /**
   * Scopes the private app lacks (`crm.objects.contacts.write`, `crm.schemas.companies.read`…): routes needing one
   * answer 403 MISSING_SCOPES.
   */
  missingScopes: Set<string>;
  /**
   * The next `times` requests of route `route` (the stats name, e.g. `upsert`; any route when absent) are read and
   * never answered: the connection stays open until the client gives up or the emulator closes.
   */
  hang: { route?: string; times: number };
  /** Requests hung so far. */
  hung: number;
}

export function defaultFaults(): HubSpotFaults {
  return {
    latencyMs: 0,
    fail5xxNext: 0,
    fail5xxRate: 0,
    force429Next: 0,
    reject: { values: new Set(), mode: 'record' },
    missingScopes: new Set(),
    hang: { times: 0 },
    hung: 0,
  };
}
