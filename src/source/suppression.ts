/**
 * Whether a person is suppressed (`suppress:`, docs/data-protection.md): the one place that decides. Asked twice per
 * person record: before the reveal (id, company id, company domain: a match is never revealed, no credit) and after
 * it (the same, plus the email and its domain, known only then: a match is never written and dropped at once).
 */
import type { SuppressConfig } from '../config/suppress-settings.js';
import type { ErasedSet } from './erased-persons.js';
import { recordId } from './run-dedup.js';

export interface SuppressPaths {
  companyId: string;
  companyDomain: string;
  email: string;
}

const lower = (values: readonly string[]): Set<string> => new Set(values.map((v) => v.toLowerCase()));

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
    private readonly erased?: ErasedSet,
  ) {
    const all = (kind: keyof Omit<SuppressConfig, 'files'>): string[] => blocks.flatMap((b) => b?.[kind] ?? []);
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
        (this.erased?.ids ?? 0) +
        (this.erased?.emails ?? 0) ===
      0
    );
  }

  /** Some persons can be known suppressed before their reveal: pages must be walked before they are revealed. */
  get decidesBeforeReveal(): boolean {
    return this.personIds.size + this.companyIds.size + this.companyDomains.size + (this.erased?.ids ?? 0) > 0;
  }

  /** Suppressed on what a record carries before its reveal (id, company id, company domain). */
  beforeReveal(record: unknown): boolean {
    const id = recordId(record, this.idField);
    if (id !== undefined && (this.personIds.has(id) || this.erased?.hasId(id) === true)) return true;
    const company = recordId(record, this.paths.companyId);
    if (company !== undefined && this.companyIds.has(company)) return true;
    const domain = recordId(record, this.paths.companyDomain);
    return domain !== undefined && this.companyDomains.has(domain.toLowerCase());
  }

  /** Suppressed on everything the record carries (its email too): such a record is never written. */
  suppressed(record: unknown): boolean {
    if (this.beforeReveal(record)) return true;
    const email = recordId(record, this.paths.email)?.toLowerCase();
    if (email === undefined) return false;
    if (this.emails.has(email) || this.erased?.hasEmail(email) === true) return true;
    const at = email.lastIndexOf('@');
    return at >= 0 && this.emailDomains.has(email.slice(at + 1));
  }
}
