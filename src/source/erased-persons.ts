/**
 * Persons erased on request (`forget --apply`, docs/data-protection.md): never revealed nor written again, by any
 * search. Kept in Redis as a set of SHA-256 references (`i:` + 32 hex of the person id, `e:` + 32 hex of the
 * lower-cased email), never the id or the email itself: the store says whether a record is someone erased, not who.
 * Read once per run (`load`), asked per record by src/source/suppression.ts.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** What a run holds of the store: membership tests only. */
export interface ErasedSet {
  hasId(id: string): boolean;
  hasEmail(email: string): boolean;
  /** References by person id (decided before a reveal) and by email (after it). */
  readonly ids: number;
  readonly emails: number;
}

export interface ErasedPerson {
  personId?: string;
  email?: string;
}

const digest = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32);
const idRef = (id: string): string => `i:${digest(id)}`;
const emailRef = (email: string): string => `e:${digest(email.trim().toLowerCase())}`;

/** The references of a person (what the set holds for them); also the audit's way to name them without the id. */
export function erasedRefs(person: ErasedPerson): string[] {
  return [
    ...(person.personId === undefined ? [] : [idRef(person.personId)]),
    ...(person.email === undefined ? [] : [emailRef(person.email)]),
  ];
}

export function erasedKey(prefix: string): string {
  return `${prefix}:suppress:erased`;
}

export class ErasedPersons {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = erasedKey(prefix);
  }

  /** Adds the person (id and/or email); returns how many references were new. */
  async add(person: ErasedPerson): Promise<number> {
    const refs = erasedRefs(person);
    return refs.length === 0 ? 0 : this.redis.sadd(this.key, ...refs);
  }

  /** Whether the person (by each of the id and email given) is in the store already. */
  async holds(person: ErasedPerson): Promise<boolean> {
    const refs = erasedRefs(person);
    if (refs.length === 0) return false;
    return (await this.redis.smismember(this.key, ...refs)).some((x) => x === 1);
  }

  /** The whole set, for one run (read in cursor steps). */
  async load(): Promise<ErasedSet> {
    const refs = new Set<string>();
    let cursor = '0';
    do {
      const [next, page] = await this.redis.sscan(this.key, cursor, 'COUNT', 5000);
      cursor = next;
      for (const ref of page) refs.add(ref);
    } while (cursor !== '0');
    const all = [...refs];
    return {
      hasId: (id) => refs.size > 0 && refs.has(idRef(id)),
      hasEmail: (email) => refs.size > 0 && refs.has(emailRef(email)),
      ids: all.filter((r) => r.startsWith('i:')).length,
      emails: all.filter((r) => r.startsWith('e:')).length,
    };
  }
}
