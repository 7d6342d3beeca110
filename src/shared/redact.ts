/**
 * The one redactor: logs, error messages, stored rejects and run summaries pass text through `redact` before it
 * leaves the process. It removes secrets (Authorization values, bearer/basic credentials, `client_secret=`,
 * `access_token=`, passwords) and contact details (emails, phone numbers), and keeps everything an operator needs
 * to debug byte for byte: IP addresses and ports, URLs, ISO timestamps and dates, UUIDs and request ids, Salesforce
 * and HubSpot record ids, status codes, durations. Phone patterns are therefore written narrowly: a phone number has
 * a `+`, a `(area)`, a leading trunk `0` or US 3-3-4 grouping, and never touches a `.`/`:`/`-`-joined neighbour (an
 * address, a time, a date, an id). A bare run of digits (a HubSpot id) is never a phone number.
 * It also runs over whole JSON log lines: no replacement eats a quote or a backslash, so a line stays valid JSON.
 */

/** Mid-token neighbours that mean "part of something else" (an IP, a time, a date, an id, a URL). */
const NOT_AFTER = String.raw`(?<![\w+.:/\-])`;
const NOT_BEFORE = String.raw`(?![\w:]|[.\-/]\d)`;

const PHONES: readonly RegExp[] = [
  // International, E.164 or formatted: +49 30 1234567, +4930123456, +1 (415) 555-0100.
  new RegExp(String.raw`(?<![\w+])\+\d{1,3}(?:[ .\-]?\(\d{1,5}\))?(?:[ .\-]?\d{2,}){1,5}${NOT_BEFORE}`, 'g'),
  // Area code in parentheses: (030) 1234567, (555) 123-4567.
  new RegExp(String.raw`(?<![\w+(])\(\d{2,5}\)[ .\-]?\d{2,}(?:[ .\-]\d{2,}){0,3}${NOT_BEFORE}`, 'g'),
  // National with a trunk 0 (or international 00) and separators: 030-1234567, 030 1234567, 0171 2345678,
  // 030/1234567, 0049 30 1234567, 030 12 34 56 7. At least 8 digits and not a date (01-02-2026): see isPhone.
  new RegExp(String.raw`${NOT_AFTER}0\d{1,4}(?:[ /\-]\d{1,8}){1,5}${NOT_BEFORE}`, 'g'),
  // North American 3-3-4: 415-555-0100, 415.555.0100, 415 555 0100.
  new RegExp(String.raw`${NOT_AFTER}\d{3}[ .\-]\d{3}[ .\-]\d{4}${NOT_BEFORE}`, 'g'),
];

// Starts only where a word starts: scanning from every character would make long lines quadratic.
const DATE_LIKE = /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$/;

/** A candidate is a phone number when it has 8 to 15 digits (E.164's maximum) and is not shaped like a date. */
function isPhone(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '').length;
  return digits >= 8 && digits <= 15 && !DATE_LIKE.test(candidate);
}

const EMAIL = /(?<![\w.%+-])[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}/gi;

/** `Authorization: <anything>` up to the end of the header value (JSON, header or log syntax). */
const AUTHORIZATION = /(\bauthorization\\?["']?\s*[:=]\s*\\?["']?)[^"'\\\r\n,;}]+/gi;
/** A credential after its scheme, wherever it stands. */
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)\s+[\w.~+/=-]+/g;
/**
 * `<key>=value` or `"<key>": "value"` where the key names a secret (client_secret, access_token, password...);
 * not a URL path's last segment (`/oauth/token: 400`).
 */
const SECRET_PAIR = /((?<![/.])(?:secret|token|password|passwd|api[_-]?key)\\?["']?\s*[:=]\s*\\?["']?)[^\s&,;"'\\})\]]+/gi;

export interface RedactOptions {
  /** Values known to be private (the fields of a record a CRM refused): removed wherever they appear. */
  values?: readonly unknown[];
}

/** `text` without secrets, contact details or the given private values. */
export function redact(text: string, options: RedactOptions = {}): string {
  let out = text;
  if (options.values) {
    const values = options.values.filter((v): v is string => typeof v === 'string' && v.length >= 3).sort((a, b) => b.length - a.length);
    for (const value of values) out = out.split(value).join('[value]');
  }
  out = out.replace(AUTHORIZATION, '$1[secret]').replace(SCHEME_CREDENTIAL, '$1 [secret]').replace(SECRET_PAIR, '$1[secret]');
  if (out.includes('@')) out = out.replace(EMAIL, '[email]');
  for (const phone of PHONES) out = out.replace(phone, (match) => (isPhone(match) ? '[phone]' : match));
  return out;
}
