/** What a CRM write is made of: values, one record, and the object it lands in (every CRM alike). */
export type CrmValue = string | number | boolean | null;

/** One record to write: `key` is the value of the match (unique / external id) field. */
export interface CrmRecord {
  key: string;
  properties: Record<string, CrmValue>;
  /** Match-field value of the company record this person belongs to (persons with `associate`). */
  companyKey?: string;
}

/** Where records land: a CRM object, its unique match field, and the fields a search maps. */
export interface ObjectTarget {
  /** One of the objects the destination's port lists (e.g. hubspot: `companies` | `contacts`). */
  object: string;
  matchField: string;
  fields: string[];
  /** For persons: the company object and its match field, to link each record to `companyKey`. */
  associate?: { object: string; matchField: string };
}
