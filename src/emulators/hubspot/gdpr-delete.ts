/**
 * `POST /crm/v3/objects/contacts/gdpr-delete` as HubSpot documents it: `{objectId, idProperty?}`; the contact (by id,
 * or by a unique property such as `email`) is deleted for good, with its associations and list memberships, and is
 * not restorable (not kept among the archived). An email that matches no contact is added to the portal's blocklist
 * (answered 204 too); an unknown id is 404. 204 with no body on success.
 */
import type { HubSpotStore } from './hubspot-store.js';
import { HubSpotHttpError } from './hubspot-http-error.js';

export function gdprDelete(state: HubSpotStore, body: unknown): { status: 204 } {
  const input = (body ?? {}) as { objectId?: unknown; idProperty?: unknown };
  if (typeof input.objectId !== 'string' || input.objectId === '')
    throw new HubSpotHttpError(400, 'VALIDATION_ERROR', 'Invalid input JSON: "objectId" is required (a string)');
  if (input.idProperty !== undefined && typeof input.idProperty !== 'string')
    throw new HubSpotHttpError(400, 'VALIDATION_ERROR', 'Invalid input JSON: "idProperty" must be a string');
  const table = state.table('contacts');
  const property = input.idProperty ?? 'hs_object_id';
  if (property !== 'hs_object_id' && table.properties.get(property)?.hasUniqueValue !== true)
    throw new HubSpotHttpError(400, 'VALIDATION_ERROR', `Property "${property}" is not a unique property of contacts`);
  const found = table.findBy(property, input.objectId) ?? table.archived.get(input.objectId);
  if (found === undefined) {
    if (property === 'email') {
      state.gdprBlocklist.add(input.objectId.toLowerCase());
      return { status: 204 };
    }
    throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', 'resource not found');
  }
  table.remove(found.id);
  table.archived.delete(found.id);
  state.gdprDeleted.add(found.id);
  state.unlistGone('contacts');
  for (let i = state.associations.length - 1; i >= 0; i--) {
    const a = state.associations[i]!;
    if ((a.fromType === 'contacts' && a.fromId === found.id) || (a.toType === 'contacts' && a.toId === found.id))
      state.associations.splice(i, 1);
  }
  return { status: 204 };
}
