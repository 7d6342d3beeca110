/** The suppression decision alone (src/source/suppression.ts): what each list matches, before and after a reveal. */
import { describe, expect, it } from 'vitest';
import { Suppression } from '../../src/source/suppression.js';
import type { SuppressConfig } from '../../src/config/suppress-settings.js';

const PATHS = { companyId: 'companyId', companyDomain: 'company.domain', email: 'contacts.email' };

function block(values: Partial<SuppressConfig>): SuppressConfig {
  return { personIds: [], emails: [], emailDomains: [], companyIds: [], companyDomains: [], files: [], ...values };
}

const person = (id: string, companyId: string, domain?: string, email?: string): Record<string, unknown> => ({
  id,
  companyId,
  ...(domain ? { company: { domain } } : {}),
  ...(email ? { contacts: { email, phone: '+49 30 1234567' } } : {}),
});

describe('Suppression', () => {
  it('person ids, company ids and company domains decide before the reveal', () => {
    const s = new Suppression(
      [block({ personIds: ['p-1'] }), block({ companyIds: ['c_9'], companyDomains: ['Acme.example'] })],
      'id',
      PATHS,
    );
    expect(s.decidesBeforeReveal).toBe(true);
    expect(s.beforeReveal(person('p-1', 'c_1'))).toBe(true);
    expect(s.beforeReveal(person('p-2', 'c_9'))).toBe(true);
    expect(s.beforeReveal(person('p-3', 'c_2', 'ACME.example'))).toBe(true);
    expect(s.beforeReveal(person('p-4', 'c_2', 'sub.acme.example'))).toBe(false);
    expect(s.beforeReveal(person('p-5', 'c_2'))).toBe(false);
  });

  it('emails and email domains decide only once the contacts are there, case-insensitively', () => {
    const s = new Suppression([block({ emails: ['Jane.Doe@x.example'], emailDomains: ['y.example'] })], 'id', PATHS);
    expect(s.decidesBeforeReveal).toBe(false);
    expect(s.empty).toBe(false);
    expect(s.beforeReveal(person('p-1', 'c_1', undefined, 'jane.doe@x.example'))).toBe(false);
    expect(s.suppressed(person('p-1', 'c_1', undefined, 'jane.doe@X.example'))).toBe(true);
    expect(s.suppressed(person('p-2', 'c_1', undefined, 'bob@Y.EXAMPLE'))).toBe(true);
    expect(s.suppressed(person('p-3', 'c_1', undefined, 'bob@noty.example'))).toBe(false);
    expect(s.suppressed(person('p-4', 'c_1'))).toBe(false);
  });

  it('nothing listed: empty, and nothing matches', () => {
    const s = new Suppression([block({}), undefined], 'id', PATHS);
    expect(s.empty).toBe(true);
    expect(s.suppressed(person('p-1', 'c_1', 'a.example', 'a@a.example'))).toBe(false);
  });
});
