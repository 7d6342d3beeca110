/**
 * What a CRM is to the rest of the worker: one `DestinationPort` per CRM, in `src/crm/<crm>/destination.ts`, listed
 * in the registry (`destinations.ts`). The config schema, the checks of a search, the plan, the walk and the run's
 * error handling ask the port; nothing outside a CRM's folder names it. A port module stays light (zod and facts):
 * its client loads only in `open()`, so a run loads the client of the CRM it writes and no other.
 */
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import type { Logger } from '../shared/logger.js';
import type { CrmSink } from './crm-sink.js';

/** The API's record kinds (the source layer's `Entity`, repeated here: crm does not import source). */
export type EntityKind = 'companies' | 'persons';

/** A destination block of the config as parsed: its `type` plus the port's own keys. */
export interface DestinationConfig {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** A port's config block: a strict zod object whose `type` is the port's name (a discriminated-union branch). */
export type DestinationSchema = z.ZodObject<{ type: z.ZodLiteral<string> } & z.ZodRawShape>;

/**
 * What `open()` gets besides the destination's config: the app's Redis (rate governors, shared state), its key prefix,
 * the run's logger.
 */
export interface DestinationContext {
  redis: Redis;
  keyPrefix: string;
  logger: Logger;
}

export interface DestinationPort<S extends DestinationSchema = DestinationSchema> {
  /** The `type:` of a destination block, e.g. `hubspot`. */
  readonly type: string;
  /**
   * The destination block's keys (with `type: z.literal(<type>)`), strict; secrets use `secret` of
   * src/config/config-fields.ts.
   */
  readonly configSchema: S;
  /** CRM objects per entity. The first company object is the one persons link to (`associate`). */
  readonly objects: Readonly<Record<EntityKind, readonly string[]>>;
  /** Objects its sink's `lists` (ListPort) can hold; absent: the destination has no lists. */
  readonly listObjects?: readonly string[];
  /** Its sink has `archive` (CrmSink): searches writing here may say `onLeave: archive`. */
  readonly archives?: boolean;
  /**
   * The config key whose value is the match field of searches that name none (e.g. an external-id field); absent: none.
   */
  readonly matchFieldKey?: string;
  /**
   * The most records per second the destination takes, known from its config before anything opens; null or absent
   * when its limit is not a short window. An upper bound: the plan and the walk size their journeys by it.
   */
  ceiling?(config: z.output<S>): number | null;
  /**
   * Its account's label in the shared rate governor (src/shared/rate-governor.ts; remote: its `type`), e.g. a short
   * hash of its address and credentials, never a secret: what the destination learned of its limits is read by it.
   */
  governorAccount?(config: z.output<S>): string;
  /**
   * The smallest partition worth its own write, in records (e.g. a bulk job's worth); absent: two source pages. A
   * partition's last write is partial, so smaller pieces would spend the CRM's large writes on small ones.
   */
  readonly minPartitionRecords?: number;
  /**
   * Error codes of its sink, besides the shared `crm_daily_limit`, that mean an allowance is used up: the run stops
   * cleanly and is retried later.
   */
  readonly limitCodes?: readonly string[];
  /**
   * Opens the sink (loading the CRM's client now). Members a step before the run needs (checks, probes) sit beside it.
   */
  open(config: z.output<S>, context: DestinationContext): Promise<CrmSink>;
}
