/** Records per HubSpot batch call (read, upsert, associations): HubSpot's cap on inputs per batch. */
export const HUBSPOT_BATCH_SIZE = 100;
