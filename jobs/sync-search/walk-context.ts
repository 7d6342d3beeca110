/** What the walk of one run is given (jobs/sync-search/walk-partitions.ts), and the figures it reports. */
import type { CrmWriter, FieldMapping } from '../../src/crm/index.js';
import type { SourceClient, Suppression } from '../../src/source/index.js';
import type { PartitionStream } from './partition-stream.js';
import type { RunPlan } from './plan-run.js';
import type { RunLedger } from './run-ledger.js';

export interface WalkContext {
  source: SourceClient;
  plan: RunPlan;
  runId: string;
  view: string[];
  idField: string;
  /** Persons the run never reveals nor writes (`suppress:`). */
  suppression: Suppression;
  mode: 'cursor' | 'offset';
  /** The run's state: where each partition's journey stands, and where each batch the CRM answered is committed. */
  ledger: RunLedger;
  /** The partitions to walk (jobs/sync-search/stream-plan.ts); pieces of a partition split mid-walk go back in. */
  partitions: PartitionStream;
  /** Aborts the walk (shutdown, lost run lock): each journey finishes the batch in flight, then stops. */
  signal: AbortSignal;
  /** The CRM writes' signal: the run's, after a grace for the write in flight (a hung CRM call cannot hold a stop). */
  writeSignal: AbortSignal;
  /** The CRM end: maps, skips unchanged and upserts records, one outcome per record in input order. */
  crm: { writer: CrmWriter; mapping: FieldMapping };
  dryRun: boolean;
  /**
   * Records per CRM write (pages are gathered up to this; smaller batches are packed together); the ledger commits once
   * per write.
   */
  writeBatch: number;
  /**
   * Re-sizes the journeys in flight as the run learns (jobs/sync-search/pacing/journey-controller.ts); else
   * `plan.parallelism`.
   */
  concurrency?: WalkConcurrency;
}

/** What the walk asks of its concurrency control. */
export interface WalkConcurrency {
  target(): number;
  /** Journeys for the run's last window, from what is left of the run (0: not there yet). */
  endGame?(left: { pages: number; partitions: number; recordsPerJourney: number }): number;
  pageFetched(): void;
  /** One CRM write of `records` took `ms` (any journey of the run). */
  writeTimed(records: number, ms: number): void;
}

/** Figures of one walk: the bound on memory is `peakUnwritten` (records fetched and not yet written). */
export interface WalkStats {
  /** Most journeys walking at once (those whose partition's last batch waits for packing excluded). */
  peakJourneys: number;
  peakUnwritten: number;
  /** CRM writes that carried the partial batches of several journeys (jobs/sync-search/write-packer.ts). */
  packedWrites: number;
}
