/**
 * HubSpot's per-record validation errors carry their detail as JSON inside the message
 * (`Property values were not valid:
 * [{"isValid":false,"message":"…","error":"INVALID_INTEGER","name":"numberofemployees"}]`).
 * Read that list into what a user needs: the property, HubSpot's code and its message, in plain text.
 */

export interface Refusal {
  code: string;
  /** The property HubSpot named (the first, when it named several). */
  field?: string;
  reason: string;
}

interface Problem {
  name?: unknown;
  error?: unknown;
  message?: unknown;
}

const LISTED = /^([^[]*?):?\s*(\[[\s\S]*\])\s*$/;

/** `code` and `message` as HubSpot sent them; the message's JSON list, when there is one, becomes text. */
export function readRefusal(code: string, message: string): Refusal {
  const listed = LISTED.exec(message);
  const problems = listed ? parseList(listed[2] as string) : [];
  if (problems.length === 0) return { code, reason: message };
  const text = (p: Problem): string => {
    const what = typeof p.message === 'string' ? p.message : 'invalid value';
    return (
      `${typeof p.name === 'string' ? `${p.name}: ` : ''}${what}` +
      `${typeof p.error === 'string' ? ` (${p.error})` : ''}`
    );
  };
  const first = problems[0] as Problem;
  return {
    code: typeof first.error === 'string' ? first.error : code,
    ...(typeof first.name === 'string' ? { field: first.name } : {}),
    reason: `${(listed?.[1] ?? '').trim() || 'refused'}: ${problems.map(text).join('; ')}`,
  };
}

function parseList(json: string): Problem[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((p): p is Problem => p !== null && typeof p === 'object') : [];
  } catch {
    return [];
  }
}
