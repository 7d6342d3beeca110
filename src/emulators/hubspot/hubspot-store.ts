import { defaultProperties, OBJECT_TYPE_IDS, type PropertyDef } from './default-properties.js';
import { HubSpotHttpError } from './hubspot-http-error.js';
import { ListStore } from './list-store.js';

export interface StoredObject {
  id: string;
  properties: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export interface StoredAssociation {
  fromType: string;
  fromId: string;
  toType: string;
  toId: string;
  typeId: number;
}

/** One object type's records, its property definitions and an index per unique property. */
export class ObjectTable {
  readonly objects = new Map<string, StoredObject>();
  /**
   * Archived records (restorable in HubSpot for 90 days): no read, upsert or list sees them, and their unique values
   * are free, so an upsert by an archived record's value creates a new record with a new id.
   */
  readonly archived = new Map<string, StoredObject>();
  readonly properties = new Map<string, PropertyDef>();
  private readonly unique = new Map<string, Map<string, string>>();

  constructor(readonly type: string) {
    for (const p of defaultProperties(type)) this.addProperty(p);
  }

  addProperty(def: PropertyDef): void {
    this.properties.set(def.name, def);
    if (def.hasUniqueValue) {
      const index = new Map<string, string>();
      for (const o of this.objects.values()) {
        const v = o.properties[def.name];
        if (v !== undefined && v !== '') index.set(v, o.id);
      }
      this.unique.set(def.name, index);
    }
  }

  findBy(property: string, value: string): StoredObject | undefined {
    if (property === 'hs_object_id') return this.objects.get(value);
    const id = this.unique.get(property)?.get(value);
    return id === undefined ? undefined : this.objects.get(id);
  }

  /** Unique-value conflict: another record already holds this value. */
  conflict(
    properties: Record<string, string>,
    selfId: string | undefined,
  ): { property: string; existingId: string } | undefined {
    for (const [name, index] of this.unique) {
      const v = properties[name];
      if (v === undefined || v === '') continue;
      const holder = index.get(v);
      if (holder !== undefined && holder !== selfId) return { property: name, existingId: holder };
    }
    return undefined;
  }

  put(id: string, properties: Record<string, string>, now: string): StoredObject {
    const existing = this.objects.get(id);
    const object: StoredObject = existing ?? {
      id,
      properties: { hs_object_id: id, createdate: now },
      createdAt: now,
      updatedAt: now,
    };
    for (const [name, value] of Object.entries(properties)) {
      const index = this.unique.get(name);
      const old = object.properties[name];
      if (index !== undefined && old !== undefined) index.delete(old);
      object.properties[name] = value;
      if (index !== undefined && value !== '') index.set(value, id);
    }
    object.properties.lastmodifieddate = now;
    object.updatedAt = now;
    this.objects.set(id, object);
    return object;
  }

  /** Archives a record (unknown ids are ignored, as HubSpot's batch archive does). */
  remove(id: string): void {
    const object = this.objects.get(id);
    if (object === undefined) return;
    for (const [name, index] of this.unique) {
      const v = object.properties[name];
      if (v !== undefined) index.delete(v);
    }
    this.objects.delete(id);
    this.archived.set(id, object);
  }
}

/** The emulator's whole state; tests read it directly. */
export class HubSpotStore {
  readonly tables = new Map<string, ObjectTable>();
  readonly associations: StoredAssociation[] = [];
  readonly lists = new ListStore();
  /** Contact ids deleted for good by `gdpr-delete` (not restorable), and emails it blocklisted (none matched). */
  readonly gdprDeleted = new Set<string>();
  readonly gdprBlocklist = new Set<string>();
  private nextId = 1000;

  constructor() {
    for (const type of Object.keys(OBJECT_TYPE_IDS)) this.tables.set(type, new ObjectTable(type));
  }

  table(type: string): ObjectTable {
    const table = this.tables.get(type);
    if (table === undefined)
      throw new HubSpotHttpError(400, 'VALIDATION_ERROR', `Unable to infer object type from: ${type}`);
    return table;
  }

  newId(): string {
    this.nextId += 1;
    return String(this.nextId);
  }

  /** Convenience for tests: a record's properties by a unique property's value. */
  find(type: string, property: string, value: string): StoredObject | undefined {
    return this.tables.get(type)?.findBy(property, value);
  }

  /** Records of `type` gone from the table (archived) leave every list, as in HubSpot. */
  unlistGone(type: string): void {
    const table = this.table(type);
    const typeId = OBJECT_TYPE_IDS[type];
    for (const list of this.lists.byId.values()) {
      if (list.objectTypeId !== typeId) continue;
      for (const id of list.members.keys()) if (!table.objects.has(id)) list.members.delete(id);
    }
  }

  count(type: string): number {
    return this.tables.get(type)?.objects.size ?? 0;
  }
}
