/**
 * `suppress:` values from the config and from files next to it: one value a line or a CSV column, read at each
 * load (so a SIGHUP reload reads them again); a bad value or file is an error naming file:line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, formatIssue, loadConfig } from '../../src/config/index.js';
import { hubspotConfig } from '../jobs/sync-fixture.js';

const ENV = {
  SI_BASE_URL: 'http://127.0.0.1:1',
  SI_TOKEN_URL: 'http://127.0.0.1:1/oauth/token',
  SI_CLIENT_ID: 'id',
  SI_CLIENT_SECRET: 'secret',
  HUBSPOT_TOKEN: 'token',
  HUBSPOT_BASE_URL: 'http://127.0.0.1:2',
};

const SEARCH = `
  - name: people
    segment: key-accounts
    entity: persons
    filter: {company: {headcount: {gte: 1}}}
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName}`;

/** Writes the config (with `suppress` as its top-level block) and `files` into a fresh directory. */
function setUp(suppress: string, files: Record<string, string>, searchSuppress = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'suppress-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const path = join(dir, 'prospect-sync.yaml');
  writeFileSync(path, `${hubspotConfig(SEARCH + searchSuppress)}suppress:\n${suppress}\n`);
  return path;
}

async function issuesOf(path: string): Promise<string[]> {
  const error = await loadConfig({ path, env: ENV }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as ConfigError).issues.map(formatIssue);
}

describe('suppress: files', () => {
  it(
    'reads lines and CSV columns relative to the config file, merged with the inline values; again on ' + 'reload',
    async () => {
      const path = setUp(
        [
          '  personIds: [p-inline]',
          '  files:',
          '    - {path: ids.txt, kind: personIds}',
          '    - {path: lists/optouts.csv, kind: emails, column: email}',
        ].join('\n'),
        { 'ids.txt': '# objected by mail\np-1\n\n  p-2  \r\n' },
        '\n    suppress: {companyDomains: [acme.example]}',
      );
      const dir = join(path, '..');
      const { mkdirSync } = await import('node:fs');
      mkdirSync(join(dir, 'lists'));
      writeFileSync(join(dir, 'lists/optouts.csv'), 'name,email\n"Doe, Jane",jane@x.example\nBob,\n');
      const config = await loadConfig({ path, env: ENV });
      expect(config.suppress.personIds).toEqual(['p-inline', 'p-1', 'p-2']);
      expect(config.suppress.emails).toEqual(['jane@x.example']);
      expect(config.searches[0]!.suppress?.companyDomains).toEqual(['acme.example']);
      expect(config.suppress.paths).toEqual({
        companyId: 'companyId',
        companyDomain: 'company.domain',
        email: 'contacts.email',
      });

      // what a SIGHUP does: the config is loaded again, and its files with it
      writeFileSync(join(dir, 'ids.txt'), 'p-3\n');
      expect((await loadConfig({ path, env: ENV })).suppress.personIds).toEqual(['p-inline', 'p-3']);
    },
  );

  it('a bad value names file:line (never the value); a missing column, file or bad inline value too', async () => {
    const inline = await issuesOf(setUp('  emails: [not-an-email]', {}));
    expect(inline).toEqual([
      expect.stringMatching(/prospect-sync\.yaml:\d+:\d+ suppress\.emails\[0\]: not an email address/),
    ]);
    const path = setUp(
      [
        '  files:',
        '    - {path: emails.txt, kind: emails}',
        '    - {path: domains.csv, kind: companyDomains, column: domain}',
        '    - {path: gone.txt, kind: personIds}',
      ].join('\n'),
      { 'emails.txt': 'a@b.example\n\nfoo bar@b.example\n', 'domains.csv': 'name,website\nacme,acme.example\n' },
    );
    const dir = join(path, '..');
    const issues = await issuesOf(path);
    expect(issues).toEqual(
      expect.arrayContaining([
        `${join(dir, 'emails.txt')}:3:1: emails: not an email address`,
        `${join(dir, 'domains.csv')}:1:1: no column "domain" in the header`,
        `${join(dir, 'gone.txt')}: file not found`,
      ]),
    );
    expect(issues).toHaveLength(3);
    expect([...inline, ...issues].join('\n')).not.toMatch(/foo bar|not-an-email/);
  });
});
