/**
 * Where a refused credential came from, so the user knows what to fix: "check HUBSPOT_TOKEN
 * (destinations.hubspot.accessToken)". Names variables and config paths, never values.
 */
import type { LoadedConfig } from './load-config.js';
import { formatPath } from './yaml-tree.js';

/** The codes of a refused credential: the CRM's (token, login) or the Sales-Intelligence API's (client secret). */
const REFUSED = { crm_auth_failed: 'crm', source_unauthorized: 'source' } as const;

/**
 * `message` with what to check appended, when `code` is a refused credential: the source's client secret, or the
 * secrets of `destination` (a search's). Other codes: `message` as it is.
 */
export function withCredentialHint(
  loaded: Pick<LoadedConfig, 'variables'>,
  code: string,
  message: string,
  destination?: string,
): string {
  const side = REFUSED[code as keyof typeof REFUSED];
  if (!side) return message;
  const prefix = side === 'source' ? formatPath(['source', 'auth']) : formatPath(['destinations', destination ?? '']);
  const secrets = [...loaded.variables].filter(([path]) => path.startsWith(`${prefix}.`));
  if (secrets.length === 0) return message;
  return `${message}: check ${secrets.map(([path, variable]) => `${variable} (${path})`).join(', ')}`;
}
