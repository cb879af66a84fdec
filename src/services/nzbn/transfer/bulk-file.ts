/**
 * `rsg import nzbn --bulk-csv FILE…`: the register's monthly bulk data CSV (domain/bulk-record.ts, its 19
 * public columns, a header line first) as public entities. A number the register does not hold becomes
 * an entity with those parts only (every private part empty, nothing private). A number it holds keeps
 * everything the file does not carry: the public parts the file gives replace the entity's current ones
 * only where the file says otherwise than the entity's public view, so a register loaded whole and then
 * given the month's public file changes only what changed publicly.
 */
import type pg from 'pg';
import { RuleError } from '../../../platform/errors.ts';
import { glnProblem } from '../../../platform/gs1.ts';
import { isNzDateTimeString } from '../../../platform/nz-time.ts';
import { schemaProblems } from '../../../platform/transfer/check.ts';
import {
  accepted,
  type Checked,
  type ImportSession,
  refused,
  SKIP_LINE,
  type WriteCounts,
} from '../../../platform/transfer/register.ts';
import { findBic } from '../domain/bic.ts';
import { BULK_COLUMNS, bulkCells } from '../domain/bulk-record.ts';
import { ENTITY_STATUSES, ENTITY_TYPES, PRIVACY_FLAGS } from '../domain/codes.ts';
import { publicView } from '../domain/privacy.ts';
import { type Address, Entity } from '../domain/schema.ts';
import type { DocumentSource } from '../store/document-source.ts';
import { type EntityTransferRow, entitiesNamed } from '../store/transfer.ts';
import { NzbnImporter } from './importer.ts';
import type { NzbnRecord } from './records.ts';

const HEADER = BULK_COLUMNS.map((column) => column.name);
type Cells = (string | null)[];

/** One CSV line's fields (RFC 4180; a quoted field may not hold a line break here). */
export function csvFields(text: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new RuleError('(line)', 'has a quoted field that does not end on the line');
        value += text.slice(i, quote);
        if (text[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
      fields.push(value);
      if (i < text.length && text[i] !== ',') throw new RuleError('(line)', 'has text after a quoted field');
    } else {
      const comma = text.indexOf(',', i);
      fields.push(text.slice(i, comma < 0 ? text.length : comma));
      i = comma < 0 ? text.length : comma;
    }
    if (i >= text.length) return fields;
    i++;
  }
}

const cell = (cells: Cells, name: string) => cells[HEADER.indexOf(name)] ?? null;
const list = (text: string | null) => (text ? text.split('; ').filter(Boolean) : []);

function address(cells: Cells, name: string, type: string, nzbn: string, since: string): Address | undefined {
  const text = cell(cells, name);
  if (!text) return undefined;
  const parts = text.split(', ');
  const rest = parts.slice(3).join(', ');
  return {
    uniqueIdentifier: `${nzbn}${type[0]}`,
    startDate: since,
    endDate: null,
    careOf: null,
    address1: parts[0]!,
    address2: parts[1] ?? null,
    address3: parts[2] ?? null,
    address4: rest === '' ? null : rest,
    postCode: cell(cells, `${name.replace('Address', '')}PostCode`),
    countryCode: 'NZ',
    addressType: type as Address['addressType'],
    pafId: null,
  };
}

/** A public entity from a row's cells; throws `RuleError` naming the column. */
export function entityOfCells(cells: Cells): Entity {
  const nzbn = cell(cells, 'nzbn') ?? '';
  const problem = glnProblem(nzbn);
  if (problem) throw new RuleError('nzbn', `is not a business number: ${problem.message}`);
  const typeCode = cell(cells, 'entityTypeCode') ?? '';
  const type = ENTITY_TYPES[typeCode as keyof typeof ENTITY_TYPES];
  if (!type) throw new RuleError('entityTypeCode', 'is not an entity type code');
  const statusCode = cell(cells, 'entityStatusCode') ?? '';
  const status = ENTITY_STATUSES[statusCode as keyof typeof ENTITY_STATUSES];
  if (!status) throw new RuleError('entityStatusCode', 'is not an entity status code');
  for (const name of ['registrationDate', 'lastUpdatedDate']) {
    if (!isNzDateTimeString(cell(cells, name) ?? ''))
      throw new RuleError(name, 'must be a New Zealand date-time');
  }
  const since = cell(cells, 'registrationDate')!;
  const classifications = list(cell(cells, 'industryClassificationCodes')).map((code, i) => {
    const bic = findBic(code);
    if (!bic) throw new RuleError('industryClassificationCodes', `${code} is not a classification code`);
    return {
      uniqueIdentifier: `${nzbn}C${i}`,
      classificationCode: code,
      classificationDescription: bic.description,
    };
  });
  const addresses = [
    address(cells, 'registeredAddress', 'REGISTERED', nzbn, since),
    address(cells, 'serviceAddress', 'SERVICE', nzbn, since),
    address(cells, 'postalAddress', 'POSTAL', nzbn, since),
  ].filter((a): a is Address => a !== undefined);
  const name = cell(cells, 'entityName') ?? '';
  if (name.trim() === '') throw new RuleError('entityName', 'must not be blank');
  return {
    entityStatusCode: statusCode,
    entityName: name,
    nzbn,
    entityTypeCode: typeCode,
    entityTypeDescription: cell(cells, 'entityTypeDescription') ?? type.description,
    entityStatusDescription: cell(cells, 'entityStatusDescription') ?? status.description,
    registrationDate: since,
    sourceRegister: cell(cells, 'sourceRegister') ?? type.sourceRegister,
    sourceRegisterUniqueIdentifier: cell(cells, 'sourceRegisterUniqueIdentifier'),
    lastUpdatedDate: cell(cells, 'lastUpdatedDate')!,
    australianBusinessNumber: cell(cells, 'australianBusinessNumber'),
    hibernationStatusCode: null,
    hibernationStatusDescription: null,
    addresses: { links: [], addressList: addresses },
    emailAddresses: [],
    phoneNumbers: [],
    websites: [],
    tradingNames: list(cell(cells, 'tradingNames')).map((tradingName, i) => ({
      uniqueIdentifier: `${nzbn}T${i}`,
      name: tradingName,
      startDate: since,
      endDate: null,
    })),
    industryClassifications: classifications,
    classifications: classifications.map((c) => ({ ...c })),
    privacySettings: Object.fromEntries([...PRIVACY_FLAGS, 'publicSuggestChangesYn'].map((f) => [f, false])),
    'company-details': null,
    'non-company-details': null,
    'supporting-information': null,
    roles: [],
    tradingAreas: [],
    gstNumbers: [],
    paymentBankAccounts: [],
    businessEthnicityIdentifiers: [],
  } as unknown as Entity;
}

/** The entity the register holds with the file's public parts put in where its public view differs. */
export function mergedEntity(held: Entity, file: Entity): Entity {
  const visible = publicView(held);
  const merged: Entity = { ...held };
  for (const key of [
    'entityName',
    'entityStatusCode',
    'entityStatusDescription',
    'entityTypeCode',
    'entityTypeDescription',
    'registrationDate',
    'sourceRegister',
    'sourceRegisterUniqueIdentifier',
    'australianBusinessNumber',
    'lastUpdatedDate',
  ] as const) {
    (merged as Record<string, unknown>)[key] = file[key];
  }
  const [heldCells, fileCells] = [bulkCells(visible), bulkCells(file)];
  const differs = (name: string) => cell(heldCells, name) !== cell(fileCells, name);
  if (differs('tradingNames')) merged.tradingNames = file.tradingNames;
  if (differs('industryClassificationCodes')) {
    merged.industryClassifications = file.industryClassifications;
    merged.classifications = file.classifications;
  }
  for (const [column, type] of [
    ['registeredAddress', 'REGISTERED'],
    ['serviceAddress', 'SERVICE'],
    ['postalAddress', 'POSTAL'],
  ] as const) {
    if (!differs(column) && !differs(`${column.replace('Address', '')}PostCode`)) continue;
    const others = merged.addresses.addressList.filter(
      (a) => !(a.addressType === type && a.endDate === null),
    );
    const given = file.addresses.addressList.filter((a) => a.addressType === type);
    merged.addresses = { ...merged.addresses, addressList: [...others, ...given] };
  }
  return merged;
}

/** The bulk CSV's importer: rows checked and made public entities, written as whole entities are. */
export function bulkFileImporter(session: ImportSession, documents: DocumentSource) {
  const whole = new NzbnImporter(session, documents);
  return {
    parseLine(text: string, line: number) {
      const fields = csvFields(text);
      if (line === 1) {
        if (fields.join(',') !== HEADER.join(',')) {
          throw new RuleError('(header)', `must be the bulk file's columns: ${HEADER.join(',')}`);
        }
        return SKIP_LINE;
      }
      if (fields.length !== HEADER.length) throw new RuleError('(line)', `must have ${HEADER.length} fields`);
      return fields.map((field) => (field === '' ? null : field));
    },
    check(value: unknown): Checked<Entity> {
      try {
        const entity = entityOfCells(value as Cells);
        const problems = schemaProblems(Entity, entity);
        return problems.length > 0 ? refused(problems) : accepted(entity);
      } catch (error) {
        if (error instanceof RuleError) return refused([{ field: error.field, rule: error.rule }]);
        throw error;
      }
    },
    async write(client: pg.PoolClient, entities: readonly Entity[]): Promise<WriteCounts> {
      const held = new Map(
        (
          await entitiesNamed(
            client,
            documents,
            entities.map((e) => e.nzbn),
          )
        ).map((row) => [row.stored.nzbn, row]),
      );
      return whole.write(
        client,
        entities.map((entity) => recordOf(entity, held.get(entity.nzbn))),
      );
    },
  };
}

function recordOf(entity: Entity, held: EntityTransferRow | undefined): NzbnRecord {
  if (!held) return { entity, previousNames: [], history: [], parts: [], filings: [] };
  return {
    entity: mergedEntity(JSON.parse(held.stored.document) as Entity, entity),
    previousNames: held.stored.previousNames,
    history: held.history,
    parts: held.parts.map((p) => JSON.parse(p.document)),
    filings: held.filings,
  };
}
