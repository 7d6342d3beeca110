/**
 * Erasing persons for good (`forget --crm gdpr-delete`): the keys are read by the object's unique match property to
 * HubSpot ids, then each is deleted through `POST /crm/v3/objects/contacts/gdpr-delete` (`{objectId}`): the contact
 * and its associated content go, not restorable (an archive is, for 90 days). HubSpot has this endpoint for
 * contacts only. Keys HubSpot does not hold are `missing`; a refusal throws its typed error.
 */
import type { ArchiveResult, ObjectTarget } from '../crm-sink.js';
import { CrmSchemaError } from '../errors.js';
import type { HubSpotCaller } from './hubspot-caller.js';
import { hubspotJson } from './hubspot-json-request.js';
import { recordsByKey } from './hubspot-archive.js';

export async function gdprDeleteByKey(
  caller: HubSpotCaller,
  target: ObjectTarget,
  keys: readonly string[],
  signal?: AbortSignal,
): Promise<ArchiveResult> {
  const { object } = target;
  if (object !== 'contacts')
    throw new CrmSchemaError(`HubSpot's GDPR delete is for contacts only, not ${object}: use --crm archive`, {
      object,
    });
  const { found, result } = await recordsByKey(caller, target, keys, signal);
  for (const [key, record] of found) {
    await caller.call(
      (c, attempt) =>
        hubspotJson<undefined>(
          c,
          'POST',
          '/crm/v3/objects/contacts/gdpr-delete',
          { objectId: record.id },
          [204],
          attempt,
        ),
      { operation: 'gdpr delete', object },
      signal,
    );
    result.archived.push(key);
  }
  return result;
}
