import { z } from 'zod';
import { configSchema } from './schema.js';

/** The config's JSON Schema (draft 2020-12) for editor completion; describes what a user writes (the input side). */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'prospect-sync configuration',
  };
}
