/**
 * What earlier versions of this register answered that the published definition replaced, shown first
 * in the register's reference (its OpenAPI document's `info.description`, through the service's
 * `description`) and in the guide. `gone` is an old operation that now answers 404 (tested).
 */
export interface Replaced {
  was: string;
  now: string;
  gone?: { method: 'GET' | 'POST' | 'PUT' | 'DELETE'; path: string };
}

export const REPLACED: readonly Replaced[] = [
  {
    was: '`POST /entities/{nzbn}/entity-statuses`',
    now: '`POST /entities/{nzbn}/statuses` (204)',
    gone: { method: 'POST', path: '/entities/{nzbn}/entity-statuses' },
  },
  {
    was: '`PUT /entities/{nzbn}/australian-business-number`',
    now: '`POST /entities/{nzbn}/action-update-australian-business-numbers`',
    gone: { method: 'PUT', path: '/entities/{nzbn}/australian-business-number' },
  },
  {
    was: '`PUT /entities/{nzbn}/roles` (the whole list)',
    now: '`POST /entities/{nzbn}/roles` (one role) and `PUT /entities/{nzbn}/roles/{id}`',
    gone: { method: 'PUT', path: '/entities/{nzbn}/roles' },
  },
  {
    was: '`GET /entities/{nzbn}/organisation-parts/allocation` (reserved a number)',
    now: '`GET /entities/{nzbn}/organisation-parts-allocation` (a summary; a part gets its number when created)',
    gone: { method: 'GET', path: '/entities/{nzbn}/organisation-parts/allocation' },
  },
  {
    was: '`POST` / `DELETE /watchlists/{watchlistId}/nzbns`',
    now: '`POST /watchlists/{watchlistId}/action-append-nzbns` / `…/action-delete-nzbns`',
    gone: { method: 'POST', path: '/watchlists/{watchlistId}/nzbns' },
  },
  {
    was: '`POST /entities` with `addresses`, `phoneNumbers`, `emailAddresses`, `websites`, `industryClassifications`',
    now: 'the published `PostableEntity` lists (`registeredAddress` …, `phoneNumber`, `emailAddress`, `website`, `industryClassification`)',
  },
  {
    was: '`GET` / `POST /entities/{nzbn}/authorities`, `DELETE …/authorities/{authorityId}`',
    now: '`GET` / `POST /authorities` (filters `nzbn`, `user-id`, `organisation-id` …) and `PUT /authorities/{authorityId}`',
    gone: { method: 'GET', path: '/entities/{nzbn}/authorities' },
  },
  {
    was: 'a UUID `watchlistId`',
    now: 'the integer `watchlistId` each watchlist now has (listed by `GET /watchlists`)',
  },
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The register's own part of its reference's description. */
export const NZBN_DESCRIPTION = [
  '### Replaced by the published definition',
  'Earlier versions of this register served some operations at paths and in shapes of their own. The old paths answer 404 (or 400, where one now reads as a published path with a malformed parameter); use the published ones:',
  '',
  '| was | now |',
  '|---|---|',
  ...REPLACED.map((entry) => `| ${cell(entry.was)} | ${cell(entry.now)} |`),
].join('\n');
