export { startSalesIntelEmulator } from './emulator-server.js';
export { DICTIONARIES } from './dictionaries.js';
export type * from './types.js';
