import { formatNzDateTime } from '../../../platform/nz-time.ts';

/** A recorded change event as the store reads it. */
export interface ChangeRow {
  id: string;
  nzbn: string;
  entity_name: string;
  entity_type_code: string;
  change_event_type: string;
  change_date: Date;
  new_value: unknown;
  is_private: boolean;
}

/**
 * A change item: what a push notification carries (ours: the spec keeps its shape in a definition that
 * is not shown), one per recorded change event (spec part E, events 4). A new value holding private
 * data is never sent (`newValue: null`): a watchlist's receiver is not known to hold authority over the
 * entity.
 */
export function changeItem(row: ChangeRow, base: string) {
  return {
    changeEventId: row.id,
    nzbn: row.nzbn,
    entityName: row.entity_name,
    entityTypeCode: row.entity_type_code,
    changeEventType: row.change_event_type,
    changeDate: formatNzDateTime(row.change_date.getTime()),
    newValue: row.is_private ? null : (row.new_value ?? null),
    links: [{ rel: 'entity', href: `${base}/entities/${row.nzbn}`, methods: ['GET'] }],
  };
}

/** One change event of a change, as the change search's store reads it. */
export interface ChangeEventRow {
  changeEventType: string;
  newValue: unknown;
  isPrivate: boolean;
}

/** The change events of one entity recorded at one instant (one change), as the store reads them. */
export interface ChangeGroupRow {
  nzbn: string;
  entity_name: string;
  change_date: Date;
  events: ChangeEventRow[];
}

/** Where the data a change event type names is read, under `/entities/{nzbn}` ('' is the entity itself). */
const RESOURCES: Readonly<Record<string, string>> = {
  ADDRESS: '/addresses?address-type=ALL',
  PHONENUMBER: '/phone-numbers',
  EMAILADDRESS: '/email-addresses',
  WEBSITE: '/websites',
  TRADINGNAME: '/trading-names',
  TRADINGAREA: '/trading-areas',
  INDUSTRYCLASSIFICATION: '/industry-classifications',
  GSTNUMBER: '/gst-numbers',
  PAYMENTBANKACCOUNT: '/payment-bank-accounts',
  BUSINESSETHNICITYIDENTIFIER: '/business-ethnicity-identifiers',
  PRIVACYSETTINGS: '/privacy-settings',
  ENTITY_STATUS: '/history/entity-statuses',
  ENTITY_NAME: '/history/entity-names',
  HIBERNATIONSTATUS: '/history/hibernation-statuses',
  ORGANISATIONPART: '/organisation-parts',
  FILING: '/filings',
  COMPANYDETAILS_ANNUALRETURNS: '/company-details',
  COMPANYDETAILS_FINANCIALSTATEMENTS: '/company-details',
  COMPANYDETAILS_REMOVALCOMMENCED: '/company-details',
};

export const resourcePath = (changeEventType: string): string =>
  changeEventType.startsWith('ROLES_') ? '/roles' : (RESOURCES[changeEventType] ?? '');

/**
 * The published NzbnChange: the entity, when it changed, and each change event of that change
 * (ChangeEvent: its type, the new value as text — JSON for structured data, null when it holds private
 * data: search is public —, the resource it changed and a link to the entity).
 */
export function nzbnChange(group: ChangeGroupRow, base: string) {
  const entity = `${base}/entities/${group.nzbn}`;
  return {
    nzbn: group.nzbn,
    entityName: group.entity_name,
    changeDateTime: formatNzDateTime(group.change_date.getTime()),
    items: group.events.map((event) => ({
      changeEventType: event.changeEventType,
      newValue: event.isPrivate || event.newValue === null ? null : asText(event.newValue),
      resourceLink: `${entity}${resourcePath(event.changeEventType)}`,
      link: { rel: 'entity', href: entity, methods: ['GET'] },
    })),
  };
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
