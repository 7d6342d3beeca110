export { startHubSpotEmulator, DEFAULT_HUBSPOT_TOKEN } from './hubspot-emulator.js';
export type { HubSpotEmulator, HubSpotEmulatorOptions, HubSpotEmulatorStats } from './hubspot-emulator.js';
export type { HubSpotFaults } from './emulator-faults.js';
export type { HubSpotStore, StoredObject, StoredAssociation } from './hubspot-store.js';
export { MAX_BATCH_INPUTS } from './object-batch.js';
