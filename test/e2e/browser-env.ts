/**
 * What the browser tests share: Debian's Chromium (a test runs where it is installed, and always in CI, which
 * installs it), where screenshots go, and the two searches the dashboard's pages are shown with.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHOTS = join(ROOT, '.ci', 'out', 'screenshots');
export const CHROMIUM = '/usr/bin/chromium';
export const runBrowser = existsSync(CHROMIUM) || process.env.CI === 'true' ? it : it.skip;

/** Companies of 1-5 employees, and people of companies of 1-10 linked to them (those of 6-10 find no company). */
export const PAGE_SEARCHES = `
  - name: small-companies
    segment: icp
    entity: companies
    filter: {company: {headcount: {gte: 1, lte: 5}}}
    destination: crm
    object: companies
    matchOn: {field: prospect_sync_id, from: id}
    fields: {name: name, domain: domain}
    schedule: {every: 1h}
  - name: linked-people
    segment: icp
    entity: persons
    filter: {company: {headcount: {gte: 1, lte: 10}}}
    destination: crm
    object: contacts
    matchOn: {field: prospect_sync_id, from: id}
    fields: {firstname: firstName, lastname: lastName}
    associate: {company: {from: companyId}}
    schedule: {cron: '0 6 * * *', timezone: Europe/Berlin}
`;
