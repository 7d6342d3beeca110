/**
 * Preflights that passed, per process: a run or `validate --online` within PREFLIGHT_TTL_MS of the last passing
 * check of the same CRM endpoint, credentials and mapping makes no CRM call. Failures are never kept (a fixed
 * setup is checked again at once), and concurrent checks of one key share one round of calls.
 */
import { createHash } from 'node:crypto';
import type { FieldMapping } from './field-mapping.js';

export const PREFLIGHT_TTL_MS = 5 * 60_000;

const passed = new Map<string, number>();
const running = new Map<string, Promise<void>>();

/**
 * The cache key: the CRM, its endpoint and credentials (hashed: a changed secret is checked again) and everything the
 * preflight reads of the mapping (object, match field, each field with its source, transform, constant and overwrite,
 * the company link, the list, the fields written on leavers and their values, the opt-out fields): any change is
 * checked again.
 */
export function preflightKey(crm: string, endpoint: readonly string[], mapping: FieldMapping): string {
  const asks = {
    target: mapping.target,
    fields: mapping.fields.map((f) => [f.field, f.from ?? null, f.transform ?? null, f.constant ?? null, f.overwrite]),
    list: mapping.list?.name ?? null,
    leaveFields: (mapping.leaveFields ?? []).map((f) => [f.field, f.value]),
    optOutFields: mapping.optOutFields ?? [],
  };
  return createHash('sha256')
    .update(JSON.stringify([crm, endpoint, asks]))
    .digest('base64url');
}

export function cachedPreflight(key: string, check: () => Promise<void>, now: () => number = Date.now): Promise<void> {
  const until = passed.get(key);
  if (until !== undefined && until > now()) return Promise.resolve();
  let pending = running.get(key);
  if (pending === undefined) {
    pending = check()
      .then(() => {
        passed.set(key, now() + PREFLIGHT_TTL_MS);
      })
      .finally(() => running.delete(key));
    running.set(key, pending);
  }
  return pending;
}
