import type { AppError } from '../../shared/app-error.js';
import type { CrmRecord } from '../crm-sink.js';
import { CrmAuthError, CrmRequestError, CrmSchemaError } from '../errors.js';
import { redactReason } from '../reason-redaction.js';
import type { HubSpotApiError } from './hubspot-call-policy.js';

/** What a call was doing, for messages: `{operation: 'batch read', object: 'contacts'}`. */
export interface CallContext {
  operation: string;
  object: string;
}

/** HubSpot quotes property names as `Property "x" does not exist` (inside a JSON list in `message` for batches). */
const MISSING_PROPERTY = /Property \\*"([^"\\]+)\\*" does not exist/g;
const UNKNOWN_OBJECT = /Unable to infer object type/i;

function codesOf(api: HubSpotApiError): string[] {
  return [api.body?.subCategory, ...(api.body?.errors ?? []).map((e) => e.code)].filter(
    (c): c is string => typeof c === 'string',
  );
}

/** Property names HubSpot says do not exist (batch 400s, an unknown `idProperty`). */
function missingProperties(api: HubSpotApiError): string[] {
  const message = api.body?.message ?? '';
  const names = [...message.matchAll(MISSING_PROPERTY)].map((m) => m[1] ?? '');
  for (const e of api.body?.errors ?? []) names.push(...(e.context?.propertyName ?? []));
  return [...new Set(names.filter((n) => n !== ''))];
}

/**
 * A refusal no record can fix, so splitting a batch would only reject every record: the object or a property is
 * gone, or the match property is not unique (any longer).
 */
export function schemaProblem(api: HubSpotApiError): 'object' | 'property' | 'non-unique' | undefined {
  const message = api.body?.message ?? '';
  if (api.code === 404 || UNKNOWN_OBJECT.test(message)) return 'object';
  if (api.code !== 400) return undefined;
  if (/non-unique/i.test(message)) return 'non-unique';
  if (
    codesOf(api).includes('PROPERTY_DOESNT_EXIST') ||
    /PROPERTY_DOESNT_EXIST/.test(message) ||
    missingProperties(api).length > 0
  )
    return 'property';
  return undefined;
}

/** HubSpot's own message without record values (emails, phones, and the values of `records` when given). */
function safeMessage(api: HubSpotApiError, records: CrmRecord[]): string {
  const raw = api.body?.message ?? `HTTP ${api.code}`;
  const values = records.flatMap((r) => Object.values(r.properties));
  return redactReason(raw, { key: '', properties: Object.fromEntries(values.map((v, i) => [String(i), v])) }).slice(
    0,
    300,
  );
}

/**
 * Every HubSpot refusal (4xx other than 401/429, which the retry policy handles) as a typed error with a stable code.
 * Messages name the object, properties and HubSpot's category; never the token, never a record value.
 */
export function refusalError(api: HubSpotApiError, at: CallContext, records: CrmRecord[] = []): AppError {
  const category =
    [api.body?.category, api.body?.subCategory].filter((c) => typeof c === 'string').join('/') || `HTTP_${api.code}`;
  const details = { status: api.code, category, operation: at.operation, object: at.object };
  if (api.code === 403) {
    const scopes = (api.body?.errors ?? []).flatMap(
      (e) => e.context?.requiredGranularScopes ?? e.context?.requiredScopes ?? [],
    );
    const need = scopes.length > 0 ? `; the private app needs the scope ${scopes.join(' or ')}` : '';
    return new CrmAuthError(
      'HubSpot',
      undefined,
      `refused ${at.operation} on ${at.object} (${api.code} ${category})${need}`,
      { ...details, scopes },
    );
  }
  const schema = schemaProblem(api);
  if (schema === 'object')
    return new CrmSchemaError(`HubSpot has no object ${at.object} (${at.operation}: ${api.code} ${category})`, details);
  if (schema === 'non-unique')
    return new CrmSchemaError(
      `HubSpot refused ${at.operation} on ${at.object}: the match property is not unique (hasUniqueValue is false)`,
      details,
    );
  if (schema === 'property') {
    const missing = missingProperties(api);
    const names = missing.length > 0 ? missing.join(', ') : 'a mapped property';
    return new CrmSchemaError(
      `HubSpot ${at.object} has no property ${names} any more (${at.operation}); create it in HubSpot or fix ` +
        `the mapping`,
      { ...details, missing },
    );
  }
  return new CrmRequestError(
    'HubSpot',
    api.code,
    `${at.operation} on ${at.object}: ${category}: ${safeMessage(api, records)}`,
    details,
  );
}
