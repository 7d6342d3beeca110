/** Read-only account configuration served under /settings/* (shapes are our choice, docs/api-assumptions.md). */

export function settingsFor(name: string, accountId: string): Record<string, unknown> | undefined {
  switch (name) {
    case 'compliance':
      return {
        accountId,
        gdprMode: 'strict',
        honorOptOuts: true,
        suppressedCountries: [],
        contactRevealRequiresLawfulBasis: true,
      };
    case 'personalization':
      return { accountId, language: 'en', currency: 'USD', defaultView: [] };
    case 'intent-topics':
      return {
        accountId,
        topics: [
          { id: 'crm-migration', name: 'CRM migration' },
          { id: 'data-enrichment', name: 'Data enrichment' },
          { id: 'sales-automation', name: 'Sales automation' },
        ],
      };
    default:
      return undefined;
  }
}
