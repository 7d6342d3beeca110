import { createHash } from 'node:crypto';
import type { Entity } from './api-terms.js';

/**
 * Identifies a journey: entity, exact body bytes, view and mode. A checkpoint resumes only the journey whose
 * fingerprint it carries (the API binds cursors to the body, so resuming another body would fail anyway).
 */
export function fingerprintJourney(
  entity: Entity,
  bodyBytes: string,
  view: readonly string[],
  mode: 'cursor' | 'offset',
): string {
  return createHash('sha256')
    .update(`${entity}\n${mode}\n${view.join(',')}\n${bodyBytes}`)
    .digest('base64url')
    .slice(0, 22);
}
