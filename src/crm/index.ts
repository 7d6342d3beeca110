/**
 * The CRM layer's public surface. Data flow of one write: source records ─▶ compileFieldMapping/mapRecord
 * (paths + transforms) ─▶ change detection (Redis hashes) ─▶ overwrite policy (sink.readCurrent) ─▶ sink.upsert
 * ─▶ hashes for accepted records, rejects (with reasons, no values) for the others.
 */
export type { CrmRecord, CrmSink, CrmValue, ObjectTarget, SinkCallOptions, UpsertOutcome } from './crm-sink.js';
export { compileFieldMapping, mapRecord } from './field-mapping.js';
export type { FieldMapping, FieldMappingConfig, MappedField, MappingObjectInfo, MapResult, OverwritePolicy } from './field-mapping.js';
export { TRANSFORMS, applyTransform } from './transforms.js';
export type { TransformName } from './transforms.js';
export { CHANGE_HASH_TTL_SECONDS, createChangeDetector } from './change-detector.js';
export type { ChangeDetector } from './change-detector.js';
export { createRejectStore, MAX_PENDING_REJECTS, MAX_REJECT_HISTORY, REJECT_TTL_SECONDS } from './reject-store.js';
export type { RejectEntry, RejectStore } from './reject-store.js';
export { createCrmWriter, summarize } from './crm-writer.js';
export type { CrmWriter, CrmWriterOptions, WriteOptions, WriteOutcome, WriteResult } from './crm-writer.js';
export { CrmAuthError, CrmDailyLimitError, CrmMappingConfigError, CrmRequestError, CrmSchemaError, CrmUnavailableError } from './errors.js';
export { companyObjectOf, defaultMatchField, objectsFor, objectsOf } from './crm-objects.js';
export type { DestinationType, EntityKind } from './crm-objects.js';
export { createHubSpotSink } from './hubspot/hubspot-sink.js';
export type { HubSpotSink, HubSpotSinkOptions } from './hubspot/hubspot-sink.js';
export { SalesforceSink } from './salesforce/salesforce-sink.js';
export type { SalesforceSinkOptions } from './salesforce/salesforce-sink.js';
