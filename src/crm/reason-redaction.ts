import { redact } from '../shared/redact.js';
import type { CrmRecord } from './crm-sink.js';

/**
 * A CRM's reason for refusing a record, safe to store: CRM error messages often quote the offending value, so the
 * record's own values go too, on top of what the shared redactor removes. Bounded in length.
 */
export function redactReason(reason: string, record?: CrmRecord): string {
  return redact(reason, record ? { values: Object.values(record.properties) } : {}).slice(0, 500);
}
