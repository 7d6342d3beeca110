export { startSalesforceEmulator } from './salesforce-emulator.js';
export type { SalesforceEmulator, SalesforceEmulatorOptions, SalesforceEmulatorStats } from './salesforce-emulator.js';
export type { SalesforceFaults } from './emulator-faults.js';
export { defaultSchema } from './salesforce-schema.js';
export type { SfField, SfFieldType, SfObject, SfSchema } from './salesforce-schema.js';
