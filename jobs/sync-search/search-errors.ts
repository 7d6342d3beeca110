import { AppError } from '../../src/shared/app-error.js';

/** The job or command names a search the config does not have (e.g. removed after the job was queued). */
export class SearchNotFoundError extends AppError {
  constructor(search: string, known: string[]) {
    super(
      'search_not_found',
      `no saved search named '${search}' in the config (known: ${known.join(', ') || 'none'})`,
      {
        details: { search },
      },
    );
  }
}

/** A search asks for `view: contacts` while its segment is not in `reveal.contactsAllowedSegments`. */
export class ContactsNotAllowedError extends AppError {
  constructor(search: string, segment: string) {
    super(
      'contacts_not_allowed',
      `search '${search}' asks for contacts (view=contacts) but its segment '${segment}' is not in ` +
        `reveal.contactsAllowedSegments`,
      { details: { search, segment } },
    );
  }
}

/** The destination a search names is missing from `destinations`. */
export class DestinationNotFoundError extends AppError {
  constructor(search: string, destination: string) {
    super(
      'destination_not_found',
      `search '${search}' writes to destination '${destination}', which the config does not define`,
      {
        details: { search, destination },
      },
    );
  }
}
