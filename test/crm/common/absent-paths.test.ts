import { describe, expect, it } from 'vitest';
import { absentPathWarnings, tallyAbsent } from '../../../src/crm/absent-paths.js';
import { compileFieldMapping } from '../../../src/crm/index.js';

const mapping = compileFieldMapping(
  {
    matchOn: { field: 'ext_id', from: 'id' },
    fields: {
      firstname: 'firstName',
      lastname: 'firstName',
      jobtitle: 'job_title',
      email: 'contacts.email',
      company: { value: 'Unknown' },
    },
  },
  { object: 'contacts' },
);

describe('absent mapped paths', () => {
  it('counts each path once per record, across pages, and warns above 95% only', () => {
    const page1 = [
      { id: 'a', firstName: 'A', contacts: { email: 'x' } },
      { id: 'b', firstName: 'B' },
    ];
    const page2 = Array.from({ length: 18 }, (_, i) => ({
      id: `c${i}`,
      firstName: 'C',
      job_title: i === 0 ? 'cto' : undefined,
    }));
    const tally = tallyAbsent(tallyAbsent(undefined, mapping, page1), mapping, page2);
    expect(tally).toEqual({ records: 20, absent: { job_title: 19, 'contacts.email': 19 } });
    // 19 of 20 is 95%, not more: no warning yet; one more record without either path passes the share
    expect(absentPathWarnings(tally)).toEqual([]);
    const more = tallyAbsent(tally, mapping, [{ id: 'd', firstName: 'D' }]);
    expect(absentPathWarnings(more)).toEqual([
      'mapped path job_title was absent in 20 of 21 records',
      'mapped path contacts.email was absent in 20 of 21 records',
    ]);
  });

  it('does not count persons a reveal-once page passed by without contacts for paths into contacts', () => {
    const tally = tallyAbsent(
      undefined,
      mapping,
      [
        { id: 'a', firstName: 'A' },
        { id: 'b', firstName: 'B', contacts: {} },
      ],
      true,
    );
    expect(tally).toEqual({ records: 2, absent: { job_title: 2, 'contacts.email': 1 } });
  });
});
