export { startHubSpotEmulator, DEFAULT_HUBSPOT_TOKEN } from './hubspot-emulator.js';
export type { HubSpotEmulator, HubSpotEmulatorOptions, HubSpotEmulatorStats } from './hubspot-emulator.js';
export type { HubSpotFaults } from './emulator-faults.js';
export type { HubSpotStore, StoredObject, StoredAssociation } from './hubspot-store.js';
export { MAX_BATCH_INPUTS } from './object-batch.js';
export { MAX_MEMBERSHIP_IDS, MAX_MEMBERSHIP_PAGE } from './list-routes.js';
export type { AddedSpelling, StoredList } from './list-store.js';
export { onHubSpotExchange, type HubSpotExchange } from './exchange-log.js';
