/**
 * Field schemas every config section writes alike (a secret, an http(s) URL, counts). A leaf module: the config
 * schema and each CRM's destination block (src/crm/<crm>/destination.ts) build on it, so all say the same.
 */
import { z } from 'zod';

export const posInt = z.int().positive();
export const nonNegInt = z.int().nonnegative();
export const nonEmpty = z.string().min(1);
export const httpUrl = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

/** A secret: only from the environment (load-config checks it came from a ${VAR}); never echoed. */
export const secret = z.string().min(1, 'must not be empty').meta({ secret: true });

/** Whether a field is a secret (`secret` above, possibly optional): its value must come from a ${VAR}. */
export function isSecretField(field: z.ZodType | undefined): boolean {
  if (field === undefined) return false;
  if (z.globalRegistry.get(field)?.secret === true) return true;
  return field instanceof z.ZodOptional || field instanceof z.ZodDefault
    ? isSecretField(field.unwrap() as z.ZodType)
    : false;
}
