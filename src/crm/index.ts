/**
 * The CRM layer's public surface. Data flow of one write: source records ─▶ compileFieldMapping/mapRecord
 * (paths + transforms) ─▶ change detection (Redis hashes) ─▶ overwrite policy (sink.readCurrent) ─▶ sink.upsert
 * ─▶ hashes for accepted records, rejects (with reasons, no values) for the others.
 */
export type {
  ArchiveResult,
  CrmRecord,
  CrmSink,
  CrmValue,
  ListChange,
  ListPort,
  ObjectTarget,
  SinkCallOptions,
  UpsertOutcome,
  EraseMode,
} from './crm-sink.js';
export { compileFieldMapping, mapRecord } from './field-mapping.js';
export type {
  ConstantValue,
  FieldMapping,
  FieldMappingConfig,
  MappedField,
  MappingObjectInfo,
  MapResult,
  OverwritePolicy,
} from './field-mapping.js';
export { TRANSFORMS, applyTransform } from './transforms.js';
export type { TransformName } from './transforms.js';
export { CHANGE_HASH_TTL_SECONDS, createChangeDetector } from './change-detector.js';
export type { ChangeDetector } from './change-detector.js';
export { createRejectStore, MAX_PENDING_REJECTS, MAX_REJECT_HISTORY, REJECT_TTL_SECONDS } from './reject-store.js';
export type { RejectEntry, RejectStore } from './reject-store.js';
export { addToGroups, groupLabel, groupRejects } from './reject-groups.js';
export type { RejectGroup, Refused } from './reject-groups.js';
export { createCrmWriter } from './crm-writer.js';
export type { CrmWriter, CrmWriterOptions, WriteOptions } from './crm-writer.js';
export { answeredBefore, landedAny, summarize } from './write-result.js';
export type { AnsweredOutcomes, WriteOutcome, WriteResult } from './write-result.js';
export {
  CrmAuthError,
  CrmDailyLimitError,
  CrmListError,
  CrmMappingConfigError,
  CrmRequestError,
  CrmSchemaError,
  CrmUnavailableError,
} from './errors.js';
export {
  archivesOf,
  companyObjectOf,
  crmLimitCodes,
  defaultMatchField,
  destinationPort,
  destinationPorts,
  listObjectsOf,
  matchFieldDefaults,
  objectsFor,
  objectsOf,
  openSink,
  registerDestination,
} from './destinations.js';
export type {
  DestinationConfig,
  DestinationContext,
  DestinationPort,
  DestinationSchema,
  EntityKind,
} from './destination-port.js';
export { destinationLimits } from './destination-limits.js';
export { destinationCeiling } from './destination-ceiling.js';
export { CrmPreflightError } from './preflight-error.js';
export type { PreflightProblem } from './preflight-error.js';
export { createHubSpotSink } from './hubspot/hubspot-sink.js';
export type { HubSpotSink, HubSpotSinkOptions } from './hubspot/hubspot-sink.js';
// The Salesforce sink is not re-exported as a value: it loads jsforce, a large package (memory and start-up CPU) a
// HubSpot run must not pay for. Import it from './salesforce/salesforce-sink.js' where a Salesforce destination opens.
export type { SalesforceSink, SalesforceSinkOptions } from './salesforce/salesforce-sink.js';
