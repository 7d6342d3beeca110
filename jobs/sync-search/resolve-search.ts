import type { AppConfig, DestinationConfig, SavedSearch } from '../../src/config/index.js';
import { ContactsNotAllowedError, DestinationNotFoundError, SearchNotFoundError } from './search-errors.js';

export interface ResolvedSearch {
  search: SavedSearch;
  destination: DestinationConfig;
  /** `view` as sent to the API (persons only). */
  view: string[];
}

/**
 * Finds the saved search and re-checks, at run time, what the config loader already checked: the contacts reveal
 * policy (a config tampered with after load, or built in code, must still never send view=contacts for a segment
 * outside the allowlist) and the destination.
 */
export function resolveSearch(config: AppConfig, name: string): ResolvedSearch {
  const search = config.searches.find((s) => s.name === name);
  if (!search)
    throw new SearchNotFoundError(
      name,
      config.searches.map((s) => s.name),
    );
  const view = search.entity === 'persons' ? [...(search.view ?? [])] : [];
  if (view.includes('contacts') && !config.reveal.contactsAllowedSegments.includes(search.segment)) {
    throw new ContactsNotAllowedError(search.name, search.segment);
  }
  const destination = config.destinations[search.destination];
  if (!destination) throw new DestinationNotFoundError(search.name, search.destination);
  return { search, destination, view };
}
