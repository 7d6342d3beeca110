/** The API's own vocabulary: the entities it searches, a request body, its rate-limited operations. */

export type Entity = 'companies' | 'persons';

/** Rate-limit operations of the API: each has its own window. */
export type Operation = 'search' | 'count' | 'dictionary';

/** A request body: `{company: {...}, person: {...}, options: {...}}`, passed through as written. */
export type Filter = Record<string, unknown>;
