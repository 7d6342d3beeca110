import { groupLabel, type RejectGroup } from '../../src/crm/index.js';
import { AppError } from '../../src/shared/app-error.js';

/**
 * The CRM (or the mapping) refused a run's records: its first ones all for one reason (`crm_refused_all`, the run
 * stopped early), or more than `rejects.failAbove` of those sent (`crm_refused_share`). No retry helps (the same
 * records would be refused again): the queue fails the job at once; `run` exits 1. Details name the CRM's code and
 * field.
 */
export class CrmRefusedError extends AppError {
  constructor(code: 'crm_refused_all' | 'crm_refused_share', message: string, group: RejectGroup | undefined) {
    super(code, message, {
      details: group ? { crmCode: group.code, ...(group.field === undefined ? {} : { field: group.field }) } : {},
    });
  }
}

/** Codes of CrmRefusedError: the run failed, and retrying it would only spend the same tokens again. */
export const REFUSAL_CODES: ReadonlySet<string> = new Set(['crm_refused_all', 'crm_refused_share']);

/** `CODE [field]: example`, the reason a refusal error names. */
export function refusalText(group: RejectGroup | undefined): string {
  return group ? `${groupLabel(group)}: ${group.example}` : 'no reason recorded';
}
