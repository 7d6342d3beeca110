/**
 * `forget <person-id | email> [--crm gdpr-delete|archive|nothing] [--apply] [--reason <text>] [--json]`: every trace
 * of one person in our stores and their CRM record (docs/data-protection.md, Erasure). Without --apply it lists them
 * and changes nothing; with --apply it erases them, suppresses the person for every later run, erases or archives the
 * CRM record when --crm says so, and appends an audit entry. Never prints the id or email back.
 * Exit 0; 1 when the CRM refused or could not be read (with --crm), or a run held a search's lock; 2 for a config
 * error or a bad argument; 4 without Redis.
 */
import { forgetPerson, type CrmErasure, type ForgetReport } from '../../../jobs/sync-search/index.js';
import { createLogger } from '../../shared/logger.js';
import { UsageError } from '../cli-errors.js';
import { loadCommandConfig, printJson, type ConfigOption, type JsonOption } from '../command-context.js';
import { EXIT } from '../exit-codes.js';
import { connectRedis } from '../redis-connect.js';
import { queuePrefix } from '../../queue/queue-prefix.js';

export interface ForgetOptions extends ConfigOption, JsonOption {
  crm?: CrmErasure;
  apply?: boolean;
  reason?: string;
}

export async function runCommand(who: string, opts: ForgetOptions): Promise<number> {
  const person = who.trim();
  if (person === '' || /\s/.test(person)) throw new UsageError('forget: give one person id or one email address');
  const { config } = await loadCommandConfig(opts.config);
  const redis = await connectRedis();
  try {
    const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' }).child({ cmd: 'forget' });
    const report = await forgetPerson(
      { config, redis, prefix: queuePrefix(), logger },
      {
        who: person,
        crm: opts.crm ?? 'nothing',
        apply: opts.apply === true,
        ...(opts.reason === undefined ? {} : { reason: opts.reason }),
      },
    );
    if (opts.json) printJson(report);
    else process.stdout.write(`${lines(report, opts.crm ?? 'nothing').join('\n')}\n`);
    // Our stores are erased, but a CRM record asked to be erased could not be looked up: not done.
    const crmUnread = report.applied && opts.crm !== 'nothing' && report.crm.some((c) => c.error !== undefined);
    return crmUnread ? EXIT.failed : EXIT.ok;
  } finally {
    redis.disconnect();
  }
}

function lines(r: ForgetReport, crm: CrmErasure): string[] {
  const out = [
    `the person (by ${r.by === 'email' ? 'email' : 'person id'}; reference ${r.ref || 'none'}): ` +
      `person id ${r.personIdKnown ? 'known' : 'NOT known'}, email ${r.emailKnown ? 'known' : 'not known'}` +
      (r.alreadySuppressed ? '; already suppressed by an earlier erasure' : ''),
  ];
  if (!r.personIdKnown)
    out.push('  no CRM record names their person id: only their email is suppressed (see docs/data-protection.md)');
  out.push(r.applied ? 'erased from our stores:' : 'found in our stores:');
  if (r.traces.length === 0) out.push('  nothing');
  for (const t of r.traces) out.push(`  ${t.store}: ${t.count} in ${t.keys} key(s)`);
  out.push('in the CRM:');
  for (const c of r.crm) {
    const state = c.error ? `lookup failed: ${c.error}` : c.found ? (c.action ?? 'found') : 'no record';
    out.push(`  ${c.search} -> ${c.destination} ${c.object}: ${state}`);
  }
  if (r.applied) out.push(`suppressed for every later run; audit entry at ${r.audit?.at ?? '?'} (CRM: --crm ${crm})`);
  else out.push('nothing changed: --apply erases all of it (--crm gdpr-delete|archive also erases the CRM record)');
  return out;
}
