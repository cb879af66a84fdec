/**
 * The register's transfer record (docs/formats/nzbn.md): one line per entity — the entity whole, as
 * `GET /entities/{nzbn}` answers it to a caller with authority (private items, roles, every part of the
 * published shape), its earlier names, the ended periods its history operations list, and its
 * organisation parts as the organisation part operations show them. Checked with the API's own schemas
 * (domain/schema.ts, domain/organisation-part.ts) and the register's number rules.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { SNIFF_BYTES, sniffMediaType } from '../../../platform/documents/sniff.ts';
import { RuleError } from '../../../platform/errors.ts';
import { glnProblem } from '../../../platform/gs1.ts';
import { formatNzDateTime, isNzDateTimeString, parseNzDateTime } from '../../../platform/nz-time.ts';
import { ruleProblems, schemaProblems } from '../../../platform/transfer/check.ts';
import { documentFileName, documentFileProblem } from '../../../platform/transfer/documents.ts';
import { accepted, type Checked, refused } from '../../../platform/transfer/register.ts';
import { fileProblem } from '../domain/documents.ts';
import { DOCUMENT_TYPES } from '../domain/filings.ts';
import { OrganisationPart } from '../domain/organisation-part.ts';
import { Entity } from '../domain/schema.ts';
import type { EntityTransferRow, FilingTransferRow, HistoryRow } from '../store/transfer.ts';

/** The history operations' item kinds (`nzbn_entity_history.kind`). */
export const HISTORY_KINDS = [
  'addresses',
  'entity-names',
  'trading-names',
  'trading-areas',
  'entity-statuses',
  'hibernation-statuses',
] as const;

export const HistoryRecord = Type.Object(
  {
    kind: Type.Union(HISTORY_KINDS.map((kind) => Type.Literal(kind))),
    item: Type.Record(Type.String(), Type.Unknown()),
    startDate: Type.Union([Type.String(), Type.Null()]),
    endDate: Type.String(),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A filing made through the API (NZBN_905) with its document: the published Filing's and
 * DocumentFilingResponse's fields, and the document's own record. Its bytes are a file in the documents
 * folder beside the NDJSON.
 */
export const FilingRecord = Type.Object(
  {
    filingId: Type.String(),
    filingCode: Type.String(),
    registrationDate: Type.String(),
    submissionDate: Type.String(),
    effectiveDate: Type.String(),
    filedBy: Type.String(),
    document: Type.Object(
      {
        documentId: Type.String(),
        documentType: Nullable(Type.String()),
        fileName: Nullable(Type.String()),
        contentType: Type.String(),
        sizeBytes: Type.Integer(),
        sha256: Type.String(),
        version: Type.Integer({ minimum: 1 }),
        ownerUserId: Type.String(),
        createdDate: Type.String(),
        updatedDate: Type.String(),
        filedDate: Nullable(Type.String()),
        file: Type.String(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const EntityRecord = Type.Object(
  {
    entity: Entity,
    previousNames: Type.Array(Type.String()),
    history: Type.Array(HistoryRecord),
    organisationParts: Type.Array(OrganisationPart),
    filings: Type.Optional(Type.Array(FilingRecord)),
  },
  { additionalProperties: false },
);

export type EntityLine = Static<typeof EntityRecord>;

/** A checked line: the entity and what goes with it, history dates as instants. */
export interface NzbnRecord {
  entity: Static<typeof Entity>;
  previousNames: string[];
  history: HistoryRow[];
  parts: Static<typeof OrganisationPart>[];
  /** Its filings with their documents (`storageId` empty until the import stores the bytes). */
  filings: FilingTransferRow[];
}

/** A document is at most this size (the upload's limit). */
const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

/** The media type a file's first bytes show. */
function sniffed(file: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(SNIFF_BYTES);
    return sniffMediaType(head.subarray(0, readSync(fd, head, 0, SNIFF_BYTES, 0)));
  } finally {
    closeSync(fd);
  }
}

/** A filing's checks: identifiers, dates, the document's file against its size, digest and content. */
function filingOf(line: Static<typeof FilingRecord>, i: number, folder: string): FilingTransferRow {
  const at = `filings.${i}`;
  if (!/^[0-9]{1,18}$/.test(line.filingId)) throw new RuleError(`${at}.filingId`, 'must be digits');
  if (!(DOCUMENT_TYPES as readonly string[]).includes(line.filingCode))
    throw new RuleError(`${at}.filingCode`, `must be one of ${DOCUMENT_TYPES.join(', ')}`);
  if (line.filedBy.trim() === '') throw new RuleError(`${at}.filedBy`, 'is required');
  const d = line.document;
  if (!/^[0-9a-f]{16}$/.test(d.documentId))
    throw new RuleError(`${at}.document.documentId`, 'must be 16 lower-case hexadecimal digits');
  if (d.sizeBytes < 1 || d.sizeBytes > MAX_DOCUMENT_BYTES)
    throw new RuleError(`${at}.document.sizeBytes`, `must be from 1 to ${MAX_DOCUMENT_BYTES}`);
  if (!/^[0-9a-f]{64}$/.test(d.sha256))
    throw new RuleError(`${at}.document.sha256`, 'must be 64 lower-case hexadecimal digits');
  if (d.ownerUserId.trim() === '') throw new RuleError(`${at}.document.ownerUserId`, 'is required');
  const expected = documentFileName(d.documentId, d.fileName);
  if (d.file !== expected) throw new RuleError(`${at}.document.file`, `must be ${expected}`);
  const missing = documentFileProblem(folder, d.file, d.sizeBytes, d.sha256, 'sizeBytes');
  if (missing) throw new RuleError(`${at}.document.file`, missing);
  const file = path.join(folder, d.file);
  const problem = fileProblem({ bytes: d.sizeBytes, declared: d.contentType, sniffed: sniffed(file) });
  if (problem) throw new RuleError(`${at}.document.contentType`, problem);
  return {
    filingId: line.filingId,
    filingCode: line.filingCode,
    registrationDate: instant(line.registrationDate, `${at}.registrationDate`),
    submissionDate: instant(line.submissionDate, `${at}.submissionDate`),
    effectiveDate: instant(line.effectiveDate, `${at}.effectiveDate`),
    filedBy: line.filedBy,
    documentId: d.documentId,
    storageId: '',
    ownerUserId: d.ownerUserId,
    documentType: d.documentType,
    fileName: d.fileName,
    contentType: d.contentType,
    sizeBytes: d.sizeBytes,
    sha256: d.sha256,
    version: d.version,
    createdAt: instant(d.createdDate, `${at}.document.createdDate`),
    updatedAt: instant(d.updatedDate, `${at}.document.updatedDate`),
    filedAt: d.filedDate === null ? null : instant(d.filedDate, `${at}.document.filedDate`),
  };
}

function gln(value: string, field: string): void {
  const problem = glnProblem(value);
  if (problem) throw new RuleError(field, `is not a business number: ${problem.message}`);
}

function instant(text: string, field: string): Date {
  if (!isNzDateTimeString(text)) {
    throw new RuleError(field, 'must be a New Zealand date-time, e.g. 2024-03-01T09:30:00.000+1300');
  }
  return new Date(parseNzDateTime(text)!);
}

/** One line's entity, checked with the API's rules; filings' documents looked for in `folder`. */
export function checkEntityRecord(value: unknown, folder: string): Checked<NzbnRecord> {
  const problems = schemaProblems(EntityRecord, value);
  if (problems.length > 0) return refused(problems);
  const line = value as EntityLine;
  let record: NzbnRecord | undefined;
  const ruled = ruleProblems(() => {
    gln(line.entity.nzbn, 'entity.nzbn');
    instant(line.entity.registrationDate, 'entity.registrationDate');
    instant(line.entity.lastUpdatedDate, 'entity.lastUpdatedDate');
    const history = line.history.map((h, i) => {
      const startDate = h.startDate === null ? null : instant(h.startDate, `history.${i}.startDate`);
      const endDate = instant(h.endDate, `history.${i}.endDate`);
      if (startDate && endDate < startDate)
        throw new RuleError(`history.${i}.endDate`, 'must not be before startDate');
      return { kind: h.kind, item: JSON.stringify(h.item), startDate, endDate };
    });
    for (const [i, part] of line.organisationParts.entries()) {
      gln(part.opn, `organisationParts.${i}.opn`);
      if (part.parentNzbn !== line.entity.nzbn) {
        throw new RuleError(`organisationParts.${i}.parentNzbn`, 'must be the entity’s nzbn');
      }
    }
    const filings = (line.filings ?? []).map((filing, i) => filingOf(filing, i, folder));
    const ids = new Set<string>();
    for (const [i, filing] of filings.entries()) {
      for (const [field, id] of [
        ['filingId', filing.filingId],
        ['document.documentId', filing.documentId],
      ] as const) {
        if (ids.has(id)) throw new RuleError(`filings.${i}.${field}`, 'repeats an earlier filing’s');
        ids.add(id);
      }
    }
    record = {
      entity: line.entity,
      previousNames: line.previousNames,
      history,
      parts: line.organisationParts,
      filings,
    };
  });
  return ruled.length > 0 || !record ? refused(ruled) : accepted(record);
}

const nz = (date: Date) => formatNzDateTime(date.getTime());

/** A filing as its line has it (`filings`, in the order of the fields above). */
export function filingLine(f: FilingTransferRow): Static<typeof FilingRecord> {
  return {
    filingId: f.filingId,
    filingCode: f.filingCode,
    registrationDate: nz(f.registrationDate),
    submissionDate: nz(f.submissionDate),
    effectiveDate: nz(f.effectiveDate),
    filedBy: f.filedBy,
    document: {
      documentId: f.documentId,
      documentType: f.documentType,
      fileName: f.fileName,
      contentType: f.contentType,
      sizeBytes: f.sizeBytes,
      sha256: f.sha256,
      version: f.version,
      ownerUserId: f.ownerUserId,
      createdDate: nz(f.createdAt),
      updatedDate: nz(f.updatedAt),
      filedDate: f.filedAt ? nz(f.filedAt) : null,
      file: documentFileName(f.documentId, f.fileName),
    },
  };
}

/** The export's line, the stored documents' text kept byte for byte; `filings` only when it has some. */
export function entityLine(row: EntityTransferRow): string {
  const history = row.history.map(
    (h) =>
      `{"kind":${JSON.stringify(h.kind)},"item":${h.item},"startDate":${
        h.startDate ? JSON.stringify(formatNzDateTime(h.startDate.getTime())) : 'null'
      },"endDate":${JSON.stringify(formatNzDateTime(h.endDate.getTime()))}}`,
  );
  return `{"entity":${row.stored.document},"previousNames":${JSON.stringify(row.stored.previousNames)},"history":[${history.join(
    ',',
  )}],"organisationParts":[${row.parts.map((p) => p.document).join(',')}]${
    row.filings.length > 0 ? `,"filings":${JSON.stringify(row.filings.map(filingLine))}` : ''
  }}`;
}
