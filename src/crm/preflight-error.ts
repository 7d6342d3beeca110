import { CrmSchemaError } from './errors.js';

/**
 * One thing a preflight found wrong. `at` says which part of the search's config it concerns: a mapped field
 * (`fields.<field>`), the match field (`matchOn.field`), the company link (`associate`), the search's list (`list`), a
 * field written on leavers (`onLeave.setFields.<field>`), an opt-out field (`suppress.crm.fields`), or the object.
 */
export interface PreflightProblem {
  at: 'fields' | 'matchOn' | 'associate' | 'list' | 'onLeave' | 'suppress' | 'object';
  /** The CRM field (or object) it names. */
  field: string;
  message: string;
}

/**
 * The CRM's schema does not fit a search's mapping, found before any search request: every problem at once. Same
 * stable code as the other schema mismatches (`crm_schema_mismatch`, exit 2).
 */
export class CrmPreflightError extends CrmSchemaError {
  constructor(
    crm: string,
    object: string,
    readonly problems: readonly PreflightProblem[],
  ) {
    super(`${crm} ${object} does not fit the mapping: ${problems.map((p) => p.message).join('; ')}`, {
      object,
      problems: problems.map((p) => ({ at: p.at, field: p.field })),
    });
  }
}
