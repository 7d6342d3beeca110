/**
 * Checks HubSpot exchanges (a request and the emulator's answer: src/emulators/hubspot/exchange-log.ts) against
 * HubSpot's published OpenAPI specs, vendored and trimmed in specs/ (trim-specs.ts). Validator: ajv v8 with
 * ajv-formats: the JSON-Schema validator most of the OpenAPI tooling stands on, kept up to date, and it reads
 * OpenAPI 3.0's `nullable`; the few OpenAPI parts around the schemas (paths, responses) are looked up here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { HubSpotExchange } from '../../src/emulators/hubspot/index.js';
import { SPECS } from './trim-specs.js';

export interface ContractViolation {
  /** `POST /crm/v3/objects/{type}/batch/upsert` as the spec names it, or the request when no operation matches. */
  operation: string;
  side: 'request' | 'response';
  status: number;
  problems: string[];
}

/**
 * HubSpot's 429 body (`{status, message, errorType: "RATE_LIMIT", policyName}`, documented in its API usage guide
 * https://developers.hubspot.com/docs/guides/apps/api-usage/usage-details) is not the spec's `Error`: not checked.
 */
const UNCHECKED_STATUSES = new Set([429]);

type Schema = Record<string, unknown>;
interface Operation {
  name: string;
  method: string;
  pattern: RegExp;
  request: ValidateFunction | undefined;
  responses: Map<string, ValidateFunction | 'empty'>;
}

/** `#/components/...` refs made absolute (`<file>#/components/...`): every spec lives in one ajv instance. */
function absolute(value: unknown, file: string): unknown {
  if (Array.isArray(value)) return value.map((v) => absolute(v, file));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${file}${v}` : absolute(v, file),
    ]),
  );
}

// The schema of a JSON body: `application/json`, or any type as the specs' shared Error response has it.
function jsonSchemaOf(content: unknown): Schema | undefined {
  const byType = content as Record<string, { schema?: Schema }> | undefined;
  return (byType?.['application/json'] ?? byType?.['*/*'])?.schema;
}

function loadOperations(): Operation[] {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const operations: Operation[] = [];
  for (const file of Object.keys(SPECS)) {
    const spec = absolute(JSON.parse(readFileSync(join(import.meta.dirname, 'specs', file), 'utf8')), file) as {
      paths: Record<string, Record<string, Schema>>;
      components: { responses?: Record<string, Schema> };
    };
    ajv.addSchema({ $id: file, components: spec.components });
    for (const [path, item] of Object.entries(spec.paths))
      for (const [method, op] of Object.entries(item)) {
        const requestSchema = jsonSchemaOf((op.requestBody as { content?: unknown } | undefined)?.content);
        const responses = new Map<string, ValidateFunction | 'empty'>();
        for (const [status, declared] of Object.entries(op.responses as Record<string, Schema>)) {
          const ref = typeof declared.$ref === 'string' ? declared.$ref.split('/').pop()! : undefined;
          const response = ref === undefined ? declared : spec.components.responses?.[ref];
          const schema = jsonSchemaOf(response?.content);
          responses.set(status, schema === undefined ? 'empty' : ajv.compile(schema));
        }
        operations.push({
          name: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
          request: requestSchema === undefined ? undefined : ajv.compile(requestSchema),
          responses,
        });
      }
  }
  return operations;
}

let operations: Operation[] | undefined;

/** Reads and compiles the specs once (about a second): before the tests, not in the middle of one's timing. */
export function loadContracts(): void {
  operations ??= loadOperations();
}

function problemsOf(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
}

/** What in this exchange the specs refuse; empty: both sides conform. */
export function checkExchange(exchange: HubSpotExchange): ContractViolation[] {
  loadContracts();
  const op = operations!.find((o) => o.method === exchange.method && o.pattern.test(exchange.path));
  const status = exchange.status;
  if (op === undefined)
    return [{ operation: `${exchange.method} ${exchange.path}`, side: 'request', status, problems: ['no operation'] }];
  const violations: ContractViolation[] = [];
  if (exchange.requestRead && op.request !== undefined && !op.request(exchange.requestBody))
    violations.push({ operation: op.name, side: 'request', status, problems: problemsOf(op.request) });
  if (UNCHECKED_STATUSES.has(status)) return violations;
  const response = op.responses.get(String(status)) ?? op.responses.get('default');
  if (response === undefined)
    violations.push({ operation: op.name, side: 'response', status, problems: [`status ${status} not in the spec`] });
  else if (response === 'empty') {
    if (exchange.responseBody !== undefined)
      violations.push({ operation: op.name, side: 'response', status, problems: ['a body where the spec has none'] });
  } else if (!response(exchange.responseBody))
    violations.push({ operation: op.name, side: 'response', status, problems: problemsOf(response) });
  return violations;
}
