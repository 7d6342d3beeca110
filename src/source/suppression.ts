/**
 * Whether a person is suppressed (`suppress:`, docs/data-protection.md): the one place that decides. Asked twice per
 * person record: before the reveal (id, company id, company domain: a match is never revealed, no credit) and after
 * it (the same, plus the email and its domain, known only then: a match is never written and dropped at once).
 * Opt-outs kept in the CRM (`suppress.crm`) come as match keys, matched at the search's `matchOn.from`.
 */
import type { SuppressConfig, SuppressKind } from '../config/suppress-settings.js';
import type { CompactIdSet } from './compact-id-set.js';
import type { ErasedSet } from './erased-persons.js';
import { recordId } from './run-dedup.js';

export interface SuppressPaths {
  companyId: string;
  companyDomain: string;
  email: string;
}

const lower = (values: readonly string[]): Set<string> => new Set(values.map((v) => v.toLowerCase()));

/** The search's match keys: where a record has its key, and the keys opted out in the CRM (`suppress.crm`). */
export interface MatchKeys {
  /** The search's `matchOn.from`. */
  from: string;
  optedOut?: CompactIdSet;
}

export class Suppression {
  private readonly personIds: Set<string>;
  private readonly companyIds: Set<string>;
  private readonly companyDomains: Set<string>;
  private readonly emails: Set<string>;
  private readonly emailDomains: Set<string>;

  /** The union of `blocks` (the top-level block and the search's) and of the persons erased on request. */
  constructor(
    blocks: readonly (SuppressConfig | undefined)[],
    private readonly idField: string,
    private readonly paths: SuppressPaths,
    private readonly match?: MatchKeys,
    private readonly erased?: ErasedSet,
  ) {
    const all = (kind: SuppressKind): string[] => blocks.flatMap((b) => b?.[kind] ?? []);
    this.personIds = new Set(all('personIds'));
    this.companyIds = new Set(all('companyIds'));
    this.companyDomains = lower(all('companyDomains'));
    this.emails = lower(all('emails'));
    this.emailDomains = lower(all('emailDomains'));
  }

  /** Nothing is suppressed: callers skip the checks. */
  get empty(): boolean {
    return (
      this.personIds.size +
        this.companyIds.size +
        this.companyDomains.size +
        this.emails.size +
        this.emailDomains.size +
        (this.match?.optedOut?.size ?? 0) +
        (this.erased?.ids ?? 0) +
        (this.erased?.emails ?? 0) ===
      0
    );
  }

  /** Some persons can be known suppressed before their reveal: pages must be walked before they are revealed. */
  get decidesBeforeReveal(): boolean {
    return (
      this.personIds.size +
        this.companyIds.size +
        this.companyDomains.size +
        (this.match?.optedOut?.size ?? 0) +
        (this.erased?.ids ?? 0) >
      0
    );
  }

  /**
   * Suppressed on what a record carries before its reveal (id, company id, company domain; its match key, opted out
   * in the CRM, when the key is no contact detail).
   */
  beforeReveal(record: unknown): boolean {
    const id = recordId(record, this.idField);
    if (id !== undefined && (this.personIds.has(id) || this.erased?.hasId(id) === true)) return true;
    if (this.match?.optedOut !== undefined) {
      const key = recordId(record, this.match.from);
      if (key !== undefined && this.match.optedOut.has(key)) return true;
    }
    const company = recordId(record, this.paths.companyId);
    if (company !== undefined && this.companyIds.has(company)) return true;
    const domain = recordId(record, this.paths.companyDomain);
    return domain !== undefined && this.companyDomains.has(domain.toLowerCase());
  }

  /** Suppressed on everything the record carries (its email too): such a record is never written. */
  suppressed(record: unknown): boolean {
    // Erased on request (`forget`): no trace of them is kept again, not even as a leaver.
    if (this.isErased(record)) return true;
    return this.beforeReveal(record) || this.byEmail(record);
  }

  /**
   * The match key (`matchOn.from`) under which a suppressed record leaves the search's mirror: none for a person
   * erased on request (no trace of them is kept again) nor when the key is a contact detail (say the email).
   */
  leaverKey(record: unknown): string | undefined {
    if (this.match === undefined || this.contactPath(this.match.from) || this.isErased(record)) return undefined;
    return recordId(record, this.match.from);
  }

  private isErased(record: unknown): boolean {
    if (this.erased === undefined) return false;
    const id = recordId(record, this.idField);
    const email = recordId(record, this.paths.email)?.toLowerCase();
    return (id !== undefined && this.erased.hasId(id)) || (email !== undefined && this.erased.hasEmail(email));
  }

  private contactPath(path: string): boolean {
    return path.split('.')[0] === this.paths.email.split('.')[0];
  }

  private byEmail(record: unknown): boolean {
    const email = recordId(record, this.paths.email)?.toLowerCase();
    if (email === undefined) return false;
    if (this.emails.has(email) || this.erased?.hasEmail(email) === true) return true;
    const at = email.lastIndexOf('@');
    return at >= 0 && this.emailDomains.has(email.slice(at + 1));
  }
}
