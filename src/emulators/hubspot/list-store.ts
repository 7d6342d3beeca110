import { HubSpotHttpError, validationError } from './hubspot-http-error.js';

/** How the add-and-remove answer spells its added ids: both are seen in the wild, clients must read either. */
export type AddedSpelling = 'recordsIdsAdded' | 'recordIdsAdded';

export interface StoredList {
  listId: string;
  name: string;
  objectTypeId: string;
  processingType: 'MANUAL' | 'DYNAMIC' | 'SNAPSHOT';
  createdAt: string;
  updatedAt: string;
  listVersion: number;
  /** Record id -> when it joined. */
  members: Map<string, string>;
}

const PROCESSING_TYPES = new Set(['MANUAL', 'DYNAMIC', 'SNAPSHOT']);

/** Lists v3 of the portal: names unique case-insensitively among all lists, ids numeric strings. */
export class ListStore {
  readonly byId = new Map<string, StoredList>();
  private readonly byName = new Map<string, string>();
  private nextId = 1;

  constructor(public addedSpelling: AddedSpelling = 'recordsIdsAdded') {}

  create(name: string, objectTypeId: string, processingType: string): StoredList {
    if (!PROCESSING_TYPES.has(processingType)) throw validationError(`Invalid processingType: ${processingType}`);
    const lower = name.toLowerCase();
    if (this.byName.has(lower))
      throw new HubSpotHttpError(409, 'CONFLICT', `A list with the name "${name}" already exists`, {
        subCategory: 'ILS_LIST_NAME_CONFLICT',
      });
    const now = new Date().toISOString();
    const list: StoredList = {
      listId: String(this.nextId++),
      name,
      objectTypeId,
      processingType: processingType as StoredList['processingType'],
      createdAt: now,
      updatedAt: now,
      listVersion: 1,
      members: new Map(),
    };
    this.byId.set(list.listId, list);
    this.byName.set(lower, list.listId);
    return list;
  }

  /** Case-insensitive, like HubSpot's lookup by name; the object type must match too. */
  byNameOf(name: string, objectTypeId: string): StoredList | undefined {
    const id = this.byName.get(name.toLowerCase());
    const list = id === undefined ? undefined : this.byId.get(id);
    return list?.objectTypeId === objectTypeId ? list : undefined;
  }

  get(listId: string): StoredList {
    const list = this.byId.get(listId);
    if (list === undefined)
      throw new HubSpotHttpError(404, 'OBJECT_NOT_FOUND', `List ${listId} does not exist`, {
        subCategory: 'ILS_LIST_NOT_FOUND',
      });
    return list;
  }

  /** A record archived or deleted leaves every list. */
  dropRecord(objectTypeId: string, recordId: string): void {
    for (const list of this.byId.values()) if (list.objectTypeId === objectTypeId) list.members.delete(recordId);
  }

  /** A list as the API shows it (`PublicObjectList`). */
  static view(list: StoredList): Record<string, unknown> {
    return {
      listId: list.listId,
      name: list.name,
      objectTypeId: list.objectTypeId,
      processingType: list.processingType,
      processingStatus: 'COMPLETE',
      listVersion: list.listVersion,
      size: list.members.size,
      createdAt: list.createdAt,
      updatedAt: list.updatedAt,
    };
  }
}
