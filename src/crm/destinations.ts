/**
 * The registry of CRMs: one line per port (`src/crm/<crm>/destination.ts`), and what the rest of the worker asks about
 * destinations, answered from the port of a destination's `type`. Port modules are light; each loads its client
 * only when a destination of its type opens. `registerDestination` adds a port at run time (tests, embedders).
 */
import type { CrmSink } from './crm-sink.js';
import type {
  DestinationConfig,
  DestinationContext,
  DestinationPort,
  DestinationSchema,
  EntityKind,
} from './destination-port.js';
import { DestinationTypeError } from './errors.js';
import { hubspotDestination } from './hubspot/destination.js';
import { salesforceDestination } from './salesforce/destination.js';

/**
 * The code every sink's daily-limit error carries (`CrmDailyLimitError`): an allowance used up, whatever the CRM. Ports
 * list only other codes.
 */
const DAILY_LIMIT_CODE = 'crm_daily_limit';

let ports: readonly DestinationPort[] = [port(hubspotDestination), port(salesforceDestination)];

/**
 * A port as the registry keeps it: its config type erased (the registry hands each port only configs its schema
 * produced).
 */
function port<S extends DestinationSchema>(p: DestinationPort<S>): DestinationPort {
  return p as unknown as DestinationPort;
}

/** Adds a port; its type must be new. Returns a function that removes it again. */
export function registerDestination<S extends DestinationSchema>(added: DestinationPort<S>): () => void {
  if (ports.some((p) => p.type === added.type)) {
    throw new DestinationTypeError(`a destination type '${added.type}' is already registered`, {
      type: added.type,
      known: ports.map((p) => p.type),
    });
  }
  const erased = port(added);
  ports = [...ports, erased];
  return () => {
    ports = ports.filter((p) => p !== erased);
  };
}

/** Every registered port, in registration order (the built-in ones first). A new array whenever the list changes. */
export function destinationPorts(): readonly DestinationPort[] {
  return ports;
}

/** The port of a destination type; throws on a type no port has (the config schema lets none through). */
export function destinationPort(type: string): DestinationPort {
  const found = ports.find((p) => p.type === type);
  if (!found) {
    const known = ports.map((p) => p.type);
    throw new DestinationTypeError(`no destination type '${type}' is registered (known: ${known.join(', ')})`, {
      type,
      known,
    });
  }
  return found;
}

/** Every object a destination type writes, companies' first. */
export function objectsOf(type: string): readonly string[] {
  const { objects } = destinationPort(type);
  return [...objects.companies, ...objects.persons];
}

/** The objects `entity` may land in on `type`. */
export function objectsFor(type: string, entity: EntityKind): readonly string[] {
  return destinationPort(type).objects[entity];
}

/** The objects a list of `type` can hold (none: the destination has no lists). */
export function listObjectsOf(type: string): readonly string[] {
  return destinationPort(type).listObjects ?? [];
}

/** Whether the sink of `type` archives records (`onLeave: archive`). */
export function archivesOf(type: string): boolean {
  return destinationPort(type).archives === true;
}

/** The company object persons link to (`associate`). */
export function companyObjectOf(type: string): string {
  return destinationPort(type).objects.companies[0] as string;
}

/** The destination types whose block gives searches a default match field, and that block's key. */
export function matchFieldDefaults(): { type: string; key: string }[] {
  return ports.flatMap((p) => (p.matchFieldKey === undefined ? [] : [{ type: p.type, key: p.matchFieldKey }]));
}

/**
 * The match field a search writing to `destination` uses when it names none (the port's `matchFieldKey`); else
 * undefined.
 */
export function defaultMatchField(destination: DestinationConfig): string | undefined {
  const key = destinationPort(destination.type).matchFieldKey;
  const value = key === undefined ? undefined : destination[key];
  return typeof value === 'string' ? value : undefined;
}

/** The smallest partition worth its own write to `destination`, for a source page of `pageSize` records. */
export function minPartitionRecords(destination: DestinationConfig, pageSize: number): number {
  return destinationPort(destination.type).minPartitionRecords ?? 2 * pageSize;
}

/** Error codes that mean a CRM allowance is used up, of every registered CRM. */
export function crmLimitCodes(): ReadonlySet<string> {
  return new Set([DAILY_LIMIT_CODE, ...ports.flatMap((p) => p.limitCodes ?? [])]);
}

/** Opens the sink of `destination` through its port. */
export function openSink(destination: DestinationConfig, context: DestinationContext): Promise<CrmSink> {
  return destinationPort(destination.type).open(destination, context);
}
