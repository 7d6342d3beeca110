/**
 * The one redactor: logs, error messages, stored rejects and run summaries pass text through `redact` before it
 * leaves the process. It removes secrets (Authorization values, bearer/basic credentials, `client_secret=`,
 * `access_token=`, passwords) and contact details (emails, phone numbers), and keeps everything an operator needs
 * to debug byte for byte: IP addresses and ports, URLs, ISO timestamps and dates, UUIDs and request ids, Salesforce
 * and HubSpot record ids, status codes, durations. Phone patterns are therefore written narrowly: a phone number has
 * a `+`, a `(area)`, a leading trunk `0` (or `00`), or North American shape (3-3-4 grouped, or 10 bare digits whose
 * area and exchange codes start 2-9), and never touches a `.`/`:`/`-`-joined neighbour (an address, a time, a date,
 * an id). A bare run of digits right after a word naming a record (`company 9876543210`) is an id, not a phone.
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
  // National or international written bare or dotted: 015112345678, 0049301234567, 0171.2345678. After `00` the
  // national number never starts with 0, which keeps a Salesforce id of digits (001000000000001) out.
  new RegExp(
    String.raw`${NOT_AFTER}(?:00[1-9]\d{0,2}[1-9]\d{5,12}|0[1-9]\d{6,13}|0\d{1,4}(?:\.\d{2,8}){1,3})${NOT_BEFORE}`,
    'g',
  ),
  // North American 3-3-4: 415-555-0100, 415.555.0100, 415 555 0100.
  new RegExp(String.raw`${NOT_AFTER}\d{3}[ .\-]\d{3}[ .\-]\d{4}${NOT_BEFORE}`, 'g'),
];

/**
 * North American numbers written bare (4155550100, 14155550100): area and exchange codes start with 2-9, so Unix
 * seconds (1…) never match. HubSpot ids have the same shape; the word before tells them apart (see RECORD_WORD).
 */
const BARE_NANP = new RegExp(String.raw`${NOT_AFTER}(?:1)?[2-9]\d{2}[2-9]\d{6}${NOT_BEFORE}`, 'g');
/** Words after which a run of digits names a record (an id), not a phone number. */
const RECORD_WORD = new RegExp(
  String.raw`(?:\b(?:id|ids|object|objects|record|records|company|companies|contact|contacts|deal|deals|lead|` +
    String.raw`leads|account|accounts|owner|portal|hub|vid|run|job)\s*[:=#]?\s*|#)$`,
  'i',
);

// Starts only where a word starts: scanning from every character would make long lines quadratic.
const DATE_LIKE = /^\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}$/;

/** A candidate is a phone number when it has 8 to 15 digits (E.164's maximum) and is not shaped like a date. */
function isPhone(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '').length;
  return digits >= 8 && digits <= 15 && !DATE_LIKE.test(candidate);
}

/** Letters of any script (jürgen.müller@bücher.de), digits, marks; the top-level domain may be punycode. */
const EMAIL = new RegExp(
  String.raw`(?<![\p{L}\p{M}\p{N}_.%+-])[\p{L}\p{M}\p{N}_.%+-]+@[\p{L}\p{M}\p{N}_-]+(?:\.[\p{L}\p{M}\p{N}_-]+)` +
    String.raw`*\.(?:\p{L}{2,}|xn--[a-z0-9-]+)`,
  'giu',
);

/** `Authorization: <anything>` up to the end of the header value (JSON, header or log syntax). */
const AUTHORIZATION = /(\bauthorization\\?["']?\s*[:=]\s*\\?["']?)[^"'\\\r\n,;}]+/gi;
/**
 * A credential after its scheme, wherever it stands; not a plain word ("Basic auth failed", "Bearer token expired"):
 * base64 and token characters almost never spell a lowercase or capitalised word.
 */
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)\s+(?![A-Za-z][a-z]{0,19}(?![\w.~+/=-]))[\w.~+/=-]+/g;
/**
 * `<key>=value` or `"<key>": "value"` where the key names a secret (client_secret, access_token, password...);
 * not a URL path's last segment (`/oauth/token: 400`).
 */
const SECRET_PAIR =
  /((?<![/.])(?:secret|token|password|passwd|api[_-]?key)\\?["']?\s*[:=]\s*\\?["']?)[^\s&,;"'\\})\]]+/gi;

/**
 * The user-info part of a URL (`redis://user:password@host`, `redis://SECRET@host`): a credential, whole. Scheme and
 * user info are bounded, so a long dotted run (`a.a.a…`) is not rescanned from every word start.
 */
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@"'\\]{1,512}@/gi;

export interface RedactOptions {
  /** Values known to be private (the fields of a record a CRM refused): removed wherever they appear. */
  values?: readonly unknown[];
}

/** `text` without secrets, contact details or the given private values. */
export function redact(text: string, options: RedactOptions = {}): string {
  let out = text;
  if (options.values) {
    const values = options.values
      .filter((v): v is string => typeof v === 'string' && v.length >= 3)
      .sort((a, b) => b.length - a.length);
    for (const value of values) out = out.split(value).join('[value]');
  }
  out = out
    .replace(URL_USERINFO, '$1[secret]@')
    .replace(AUTHORIZATION, '$1[secret]')
    .replace(SCHEME_CREDENTIAL, '$1 [secret]')
    .replace(SECRET_PAIR, '$1[secret]');
  if (out.includes('@')) out = out.replace(EMAIL, '[email]');
  for (const phone of PHONES) out = out.replace(phone, (match) => (isPhone(match) ? '[phone]' : match));
  out = out.replace(BARE_NANP, (match, offset: number, whole: string) =>
    RECORD_WORD.test(whole.slice(Math.max(0, offset - 24), offset)) ? match : '[phone]',
  );
  return out;
}
