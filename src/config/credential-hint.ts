/**
 * Where a refused credential came from, so the user knows what to fix: "check HUBSPOT_TOKEN
 * (destinations.hubspot.accessToken)". Names variables and config paths, never values.
 */
import type { AppConfig } from './schema.js';
import { formatPath } from './yaml-tree.js';

/**
 * The variables each loaded config's secrets came from, kept beside the config (not in it: the config is compared,
 * printed and passed to runs as it is), so a run started from any process names them in its errors.
 */
const variablesOf = new WeakMap<AppConfig, ReadonlyMap<string, string>>();

/** Called by the loader: `config`'s secrets came from `variables` (config path -> variable name). */
export function rememberVariables(config: AppConfig, variables: ReadonlyMap<string, string>): void {
  variablesOf.set(config, variables);
}

/** `withCredentialHint` for a config the loader returned (a config built otherwise: `message` as it is). */
export function configCredentialHint(config: AppConfig, code: string, message: string, destination?: string): string {
  const variables = variablesOf.get(config);
  return variables ? withCredentialHint({ variables }, code, message, destination) : message;
}

/** The codes of a refused credential: the CRM's (token, login) or the Sales-Intelligence API's (client secret). */
const REFUSED = { crm_auth_failed: 'crm', source_unauthorized: 'source' } as const;

/**
 * `message` with what to check appended, when `code` is a refused credential: the source's client secret, or the
 * secrets of `destination` (a search's). Other codes, or a message that already says it: `message` as it is.
 */
export function withCredentialHint(
  loaded: { variables: ReadonlyMap<string, string> },
  code: string,
  message: string,
  destination?: string,
): string {
  const side = REFUSED[code as keyof typeof REFUSED];
  if (!side) return message;
  const prefix = side === 'source' ? formatPath(['source', 'auth']) : formatPath(['destinations', destination ?? '']);
  const secrets = [...loaded.variables].filter(([path]) => path.startsWith(`${prefix}.`));
  if (secrets.length === 0) return message;
  const hint = `: check ${secrets.map(([path, variable]) => `${variable} (${path})`).join(', ')}`;
  // A message hinted where the run ended (the worker) is shown again by the command that started it.
  return message.endsWith(hint) ? message : `${message}${hint}`;
}
