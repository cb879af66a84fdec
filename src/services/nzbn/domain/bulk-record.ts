/**
 * The register's public data as bulk data files (spec part E; the columns are ours): the JSON file holds
 * each entity as the API's public read answers it (`GET /entities/{nzbn}` without business authority:
 * `publicView`), the CSV file one line per entity with the columns below, made from that same public view
 * (so nothing private reaches either file). Pure.
 */
import type { Address, Entity } from './schema.ts';

export const BULK_DATASET = 'nzbn-entities';

export const BULK_COLUMNS: readonly { name: string; description: string }[] = [
  { name: 'nzbn', description: 'the 13-digit business number' },
  { name: 'entityName', description: 'the entity’s name' },
  { name: 'entityTypeCode', description: 'its type code (e.g. LTD)' },
  { name: 'entityTypeDescription', description: 'its type, in words' },
  { name: 'entityStatusCode', description: 'its status code (e.g. 50)' },
  { name: 'entityStatusDescription', description: 'its status, in words' },
  { name: 'registrationDate', description: 'when it was registered (New Zealand time)' },
  { name: 'sourceRegister', description: 'the register it came from (e.g. COMPANY)' },
  { name: 'sourceRegisterUniqueIdentifier', description: 'its number in that register' },
  { name: 'australianBusinessNumber', description: 'its ABN, when public' },
  { name: 'tradingNames', description: 'current public trading names, separated by "; "' },
  {
    name: 'registeredAddress',
    description: 'the current registered office address, lines separated by ", "',
  },
  { name: 'registeredPostCode', description: 'its post code' },
  { name: 'serviceAddress', description: 'the current address for service, when public' },
  { name: 'servicePostCode', description: 'its post code' },
  { name: 'postalAddress', description: 'the current postal address, when public' },
  { name: 'postalPostCode', description: 'its post code' },
  {
    name: 'industryClassificationCodes',
    description: 'its public industry classification codes, separated by "; "',
  },
  { name: 'lastUpdatedDate', description: 'when the register last changed it (New Zealand time)' },
];

const current = (entity: Entity, type: string): Address | undefined =>
  entity.addresses.addressList.find((address) => address.addressType === type && address.endDate === null);

const lines = (address: Address | undefined): string | null =>
  address
    ? [address.careOf, address.address1, address.address2, address.address3, address.address4]
        .filter((line): line is string => Boolean(line))
        .join(', ')
    : null;

/** One entity's CSV cells (in `BULK_COLUMNS` order) from its public view. */
export function bulkCells(entity: Entity): (string | null)[] {
  const registered = current(entity, 'REGISTERED');
  const service = current(entity, 'SERVICE');
  const postal = current(entity, 'POSTAL');
  return [
    entity.nzbn,
    entity.entityName,
    entity.entityTypeCode,
    entity.entityTypeDescription,
    entity.entityStatusCode,
    entity.entityStatusDescription,
    entity.registrationDate,
    entity.sourceRegister,
    entity.sourceRegisterUniqueIdentifier,
    entity.australianBusinessNumber,
    entity.tradingNames
      .filter((name) => name.endDate === null)
      .map((name) => name.name)
      .join('; '),
    lines(registered),
    registered?.postCode ?? null,
    lines(service),
    service?.postCode ?? null,
    lines(postal),
    postal?.postCode ?? null,
    entity.industryClassifications.map((classification) => classification.classificationCode).join('; '),
    entity.lastUpdatedDate,
  ];
}
