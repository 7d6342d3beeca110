/** Response headers as undici gives them (lower-case names; a repeated header is a list). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** The first value of header `name`. */
export function headerValue(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
