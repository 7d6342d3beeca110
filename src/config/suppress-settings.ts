/**
 * The `suppress:` block (top level and per search): who is never revealed nor written. Values come from the config
 * or from files next to it (one value a line, or a CSV with a named column), read when the config is loaded, so a
 * SIGHUP reload reads them again. The decision itself is `src/source/suppression.ts`.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import type { ConfigIssue } from './config-error.js';

export const SUPPRESS_KINDS = ['personIds', 'emails', 'emailDomains', 'companyIds', 'companyDomains'] as const;
export type SuppressKind = (typeof SUPPRESS_KINDS)[number];

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DOMAIN = /^(?!-)[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

/** Why `value` cannot be a `kind` value, or undefined. */
export function badSuppressValue(kind: SuppressKind, value: string): string | undefined {
  if (kind === 'emails' && !EMAIL.test(value)) return 'not an email address';
  if ((kind === 'emailDomains' || kind === 'companyDomains') && !DOMAIN.test(value)) return 'not a domain';
  return undefined;
}

const values = (kind: SuppressKind, what: string) =>
  z
    .array(
      z
        .string()
        .trim()
        .min(1)
        .superRefine((value, ctx) => {
          const bad = badSuppressValue(kind, value);
          if (bad) ctx.addIssue({ code: 'custom', message: bad });
        }),
    )
    .default([])
    .describe(`${what} never revealed nor written`);

const suppressFile = z.strictObject({
  path: z.string().min(1).describe('the file, relative to the config file'),
  kind: z.enum(SUPPRESS_KINDS).describe('what its values are'),
  column: z
    .string()
    .min(1)
    .optional()
    .describe('a CSV file: the header of the column holding the values; absent: one value a line'),
});

/** Opt-outs kept in the CRM: read through the sink before each run (docs/data-protection.md). */
const crmOptOutSchema = z
  .strictObject({
    fields: z
      .array(z.string().trim().min(1))
      .min(1)
      .optional()
      .describe(
        "boolean CRM fields (HubSpot properties, Salesforce fields) of the search's person object, e.g. " +
          'hs_email_optout, HasOptedOutOfEmail, DoNotCall: a record where one is true is suppressed from the ' +
          'next run on',
      ),
    property: z.string().trim().min(1).optional().describe('one HubSpot property, as `fields: [<property>]`'),
    field: z.string().trim().min(1).optional().describe('one Salesforce field, as `fields: [<field>]`'),
  })
  .refine((v) => v.fields !== undefined || v.property !== undefined || v.field !== undefined, {
    message: 'name the opt-out: fields: [..], property: <HubSpot property> or field: <Salesforce field>',
  })
  .transform((v) => ({
    ...v,
    fields: [
      ...(v.fields ?? []),
      ...(v.property === undefined ? [] : [v.property]),
      ...(v.field === undefined ? [] : [v.field]),
    ],
  }))
  .describe("persons searches: opt-outs read from the CRM's records (matched back by the match field)");

export const suppressSchema = z
  .strictObject({
    personIds: values('personIds', 'person ids (their record id): persons'),
    emails: values('emails', 'email addresses (case-insensitive): persons with one are'),
    emailDomains: values('emailDomains', 'email domains (case-insensitive): persons whose email is at one are'),
    companyIds: values('companyIds', 'company ids: persons of these companies are'),
    companyDomains: values(
      'companyDomains',
      "company domains (case-insensitive): persons whose company's domain is one are",
    ),
    files: z
      .array(suppressFile)
      .default([])
      .describe('files of values, read with the config (and again on SIGHUP); # starts a comment line'),
    crm: crmOptOutSchema.optional(),
  })
  .describe('persons never revealed (0 credits) nor written to the CRM (docs/data-protection.md)');

export const suppressPathsSchema = z
  .strictObject({
    companyId: z.string().min(1).default('companyId').describe("record path of a person's company id"),
    companyDomain: z
      .string()
      .min(1)
      .default('company.domain')
      .describe("record path of a person's company domain (before the reveal)"),
    email: z.string().min(1).default('contacts.email').describe("record path of a person's email (after the reveal)"),
  })
  .prefault({})
  .describe('top level only: where suppress: finds its values in a person record');

export type SuppressConfig = z.output<typeof suppressSchema>;
export type CrmOptOut = z.output<typeof crmOptOutSchema>;

/** Splits one CSV line (RFC 4180 quotes; no line breaks inside a field). */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  fields.push(field);
  return fields.map((f) => f.trim());
}

export interface SuppressFileValues {
  kind: SuppressKind;
  values: string[];
}

/** Reads one suppression file; problems are issues naming file:line (the config's place when the file is missing). */
export function readSuppressFile(
  entry: z.output<typeof suppressFile>,
  configFile: string,
  issues: ConfigIssue[],
): SuppressFileValues {
  const file = resolve(dirname(configFile), entry.path);
  const issue = (line: number, message: string): void =>
    void issues.push({ file, line, column: line > 0 ? 1 : 0, path: '', message });
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    issue(0, (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : 'cannot read file');
    return { kind: entry.kind, values: [] };
  }
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let column = -1;
  const out: string[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    let value = line;
    if (entry.column !== undefined) {
      const fields = csvFields(line);
      if (column < 0) {
        column = fields.indexOf(entry.column);
        if (column < 0) {
          issue(i + 1, `no column "${entry.column}" in the header`);
          column = Number.MAX_SAFE_INTEGER;
        }
        return;
      }
      if (column === Number.MAX_SAFE_INTEGER) return;
      value = fields[column] ?? '';
      if (value === '') return;
    }
    const bad = badSuppressValue(entry.kind, value);
    // The value itself may be a contact detail: never repeated in the message.
    if (bad) issue(i + 1, `${entry.kind}: ${bad}`);
    else out.push(value);
  });
  return { kind: entry.kind, values: out };
}

/** The block with its files' values merged into its lists (files emptied): what the run reads. */
export function resolveSuppress(block: SuppressConfig, configFile: string, issues: ConfigIssue[]): SuppressConfig {
  const merged: SuppressConfig = { ...block, files: [] };
  for (const kind of SUPPRESS_KINDS) merged[kind] = [...block[kind]];
  for (const entry of block.files) {
    const read = readSuppressFile(entry, configFile, issues);
    merged[read.kind].push(...read.values);
  }
  return merged;
}
