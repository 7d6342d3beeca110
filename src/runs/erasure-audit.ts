/**
 * The audit of erasures (`forget --apply`, docs/data-protection.md): one entry per erasure, newest first, kept as
 * long as the deployment (records of processing, Art. 30). An entry names the person only by a SHA-256 reference
 * (src/source/erased-persons.ts), never by id, email or any contact value; the reason is the operator's free text,
 * redacted.
 */
import type { Redis } from 'ioredis';

export interface ErasureAudit {
  at: string;
  /** The person's reference (`i:` or `e:` + 32 hex of SHA-256): who, without the id. */
  ref: string;
  /** What `forget` was given: a person id or an email. */
  by: 'personId' | 'email';
  /** What each store held of them (and no longer holds). */
  stores: { store: string; count: number }[];
  /** What became of their CRM record per destination and object. */
  crm: { destination: string; object: string; action: string }[];
  reason?: string;
}

export function erasureAuditKey(prefix: string): string {
  return `${prefix}:audit:erasures`;
}

export async function appendErasure(redis: Redis, prefix: string, entry: ErasureAudit): Promise<ErasureAudit> {
  await redis.lpush(erasureAuditKey(prefix), JSON.stringify(entry));
  return entry;
}

/** The newest `limit` erasures, newest first. */
export async function listErasures(redis: Redis, prefix: string, limit = 100): Promise<ErasureAudit[]> {
  const raw = await redis.lrange(erasureAuditKey(prefix), 0, limit - 1);
  return raw.map((line) => JSON.parse(line) as ErasureAudit);
}
