/**
 * The business number register's import of whole entities (the line of records.ts): each chunk's
 * entities compared with what the register holds, new ones inserted, changed ones made their next
 * version, change events only with `--emit-changes`, and every entity cache told at commit.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { sameJson } from '../../../platform/transfer/canonical.ts';
import { documentFileName, documentsFolderOf } from '../../../platform/transfer/documents.ts';
import type { ImportSession, RecordImporter, WriteCounts } from '../../../platform/transfer/register.ts';
import { FILING_CODES, type FilingCode } from '../domain/filings.ts';
import { hidesItems } from '../domain/privacy.ts';
import type { Entity } from '../domain/schema.ts';
import { documentFilesOf } from '../operations/document-files.ts';
import type { ChangeEvent } from '../store/changes.ts';
import type { DocumentSource } from '../store/document-source.ts';
import { toEntityRow } from '../store/rows.ts';
import {
  type EntityTransferRow,
  entitiesNamed,
  type FilingTransferRow,
  forgetCachedEntities,
  heldFilingIds,
  insertEntities,
  insertFilings,
  recordChanges,
  replaceEntity,
} from '../store/transfer.ts';
import { checkEntityRecord, filingLine, type NzbnRecord } from './records.ts';

/** The change event each top-level part of an entity records when it changes. */
const EVENT_OF: Readonly<Partial<Record<keyof Entity, string>>> = {
  entityName: 'ENTITY_NAME',
  entityStatusCode: 'ENTITY_STATUS',
  addresses: 'ADDRESS',
  tradingNames: 'TRADINGNAME',
  phoneNumbers: 'PHONENUMBER',
  emailAddresses: 'EMAILADDRESS',
  websites: 'WEBSITE',
  industryClassifications: 'INDUSTRYCLASSIFICATION',
  gstNumbers: 'GSTNUMBER',
  tradingAreas: 'TRADINGAREA',
  privacySettings: 'PRIVACYSETTINGS',
  australianBusinessNumber: 'AUSTRALIANBUSINESSNUMBER',
  hibernationStatusCode: 'HIBERNATIONSTATUS',
  roles: 'ROLES_OTHER',
  businessEthnicityIdentifiers: 'BUSINESSETHNICITYIDENTIFIER',
  paymentBankAccounts: 'PAYMENTBANKACCOUNT',
};
const PUBLIC_EVENTS = new Set(['ENTITY_NAME', 'ENTITY_STATUS']);

/** The events a changed entity records (`--emit-changes`). */
export function changeEvents(before: Entity | undefined, after: Entity, now: Date): ChangeEvent[] {
  const base = {
    nzbn: after.nzbn,
    entityName: after.entityName,
    entityTypeCode: after.entityTypeCode,
    changeDate: now,
  };
  if (!before) return [{ ...base, changeEventType: 'NEW', newValue: after, isPrivate: hidesItems(after) }];
  return Object.entries(EVENT_OF).flatMap(([key, type]) => {
    const field = key as keyof Entity;
    if (sameJson(before[field], after[field])) return [];
    return [
      {
        ...base,
        changeEventType: type!,
        newValue: after[field],
        isPrivate: !PUBLIC_EVENTS.has(type!) && hidesItems(after),
      },
    ];
  });
}

export class NzbnImporter implements RecordImporter<NzbnRecord> {
  /** Where the filings' documents are read from (`--documents`, else beside the first file). */
  private readonly folder: string;

  constructor(
    private readonly session: ImportSession,
    private readonly documents: DocumentSource,
  ) {
    const named = session.options.documents;
    this.folder = typeof named === 'string' ? named : documentsFolderOf(session.files[0]!);
  }

  check(value: unknown) {
    return checkEntityRecord(value, this.folder);
  }

  /**
   * The filings of the record the register lacks; a filing it holds must be as the file has it (a filing
   * never changes), and a new one's ids must be free.
   */
  private newFilings(record: NzbnRecord, before: EntityTransferRow | undefined): FilingTransferRow[] {
    const held = new Map((before?.filings ?? []).map((f) => [f.filingId, f]));
    return record.filings.filter((filing) => {
      const stored = held.get(filing.filingId);
      if (!stored) return true;
      if (!sameJson(filingLine(stored), filingLine(filing)))
        throw new Error(
          `entity ${record.entity.nzbn}: filing ${filing.filingId} differs from the register’s; a filing never changes`,
        );
      return false;
    });
  }

  /** Stores the new filings' bytes (each under a new name) and writes their rows; FILING events if asked. */
  private async writeFilings(
    client: pg.PoolClient,
    filings: readonly (FilingTransferRow & { nzbn: string })[],
    events: ChangeEvent[],
    entities: ReadonlyMap<string, Entity>,
  ) {
    if (filings.length === 0) return;
    const held = await heldFilingIds(
      client,
      filings.map((f) => f.filingId),
      filings.map((f) => f.documentId),
    );
    for (const filing of filings) {
      for (const id of [filing.filingId, filing.documentId]) {
        const holder = held.get(id);
        if (holder) throw new Error(`entity ${filing.nzbn}: ${id} is held by ${holder} in the register`);
      }
    }
    const store = documentFilesOf(this.session.database);
    const stored: (FilingTransferRow & { nzbn: string })[] = [];
    for (const filing of filings) {
      const storageId = randomBytes(8).toString('hex');
      const file = path.join(this.folder, documentFileName(filing.documentId, filing.fileName));
      await store.put(storageId, createReadStream(file));
      stored.push({ ...filing, storageId });
    }
    await insertFilings(client, stored);
    if (!this.session.emitChanges) return;
    for (const filing of filings) {
      const entity = entities.get(filing.nzbn)!;
      events.push({
        nzbn: filing.nzbn,
        entityName: entity.entityName,
        entityTypeCode: entity.entityTypeCode,
        changeEventType: 'FILING',
        changeDate: filing.registrationDate,
        newValue: {
          filingId: filing.filingId,
          filingCode: filing.filingCode,
          filingCodeDescription: FILING_CODES[filing.filingCode as FilingCode],
          registrationDate: filingLine(filing).registrationDate,
          documentId: filing.documentId,
        },
        isPrivate: false,
      });
    }
  }

  async write(client: pg.PoolClient, records: readonly NzbnRecord[]): Promise<WriteCounts> {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    // The same entity twice in a chunk: the first is written before the second is compared.
    let start = 0;
    while (start < records.length) {
      const seen = new Set<string>();
      let end = start;
      while (end < records.length && !seen.has(records[end]!.entity.nzbn))
        seen.add(records[end++]!.entity.nzbn);
      await this.writeDistinct(client, records.slice(start, end), counts);
      start = end;
    }
    await forgetCachedEntities(client);
    return counts;
  }

  private async writeDistinct(client: pg.PoolClient, records: readonly NzbnRecord[], counts: WriteCounts) {
    const now = new Date();
    const held = new Map(
      (
        await entitiesNamed(
          client,
          this.documents,
          records.map((r) => r.entity.nzbn),
        )
      ).map((row) => [row.stored.nzbn, row]),
    );
    const fresh: Parameters<typeof insertEntities>[1][number][] = [];
    const events: ChangeEvent[] = [];
    const filings: (FilingTransferRow & { nzbn: string })[] = [];
    for (const record of records) {
      const before = held.get(record.entity.nzbn);
      const newFilings = this.newFilings(record, before);
      filings.push(...newFilings.map((f) => ({ ...f, nzbn: record.entity.nzbn })));
      if (!before) {
        fresh.push({
          row: toEntityRow(record.entity, { origin: 'registered', previousNames: record.previousNames }),
          history: record.history,
          parts: record.parts,
        });
        if (this.session.emitChanges) events.push(...changeEvents(undefined, record.entity, now));
        continue;
      }
      const document = JSON.stringify(record.entity);
      if (unchanged(before, record, document)) {
        if (newFilings.length === 0) counts.unchanged++;
        else counts.updated++;
        continue;
      }
      const changedDocument = document !== before.stored.document;
      const row = toEntityRow(record.entity, {
        origin: before.origin,
        seedIndex: before.seedIndex,
        previousNames: record.previousNames,
        version: before.stored.version + (changedDocument ? 1 : 0),
      });
      await replaceEntity(client, before, row, record.history, record.parts, now);
      if (this.session.emitChanges) {
        events.push(...changeEvents(JSON.parse(before.stored.document) as Entity, record.entity, now));
      }
      counts.updated++;
    }
    await insertEntities(client, fresh);
    counts.inserted += fresh.length;
    await this.writeFilings(client, filings, events, new Map(records.map((r) => [r.entity.nzbn, r.entity])));
    if (events.length > 0) await recordChanges(client, events);
  }
}

function unchanged(before: EntityTransferRow, record: NzbnRecord, document: string): boolean {
  if (document !== before.stored.document) return false;
  if (!sameJson(before.stored.previousNames, record.previousNames)) return false;
  const history = new Set(before.history.map((h) => `${h.kind}\u0000${h.item}`));
  if (!record.history.every((h) => history.has(`${h.kind}\u0000${h.item}`))) return false;
  const parts = new Map(
    before.parts.map((p) => [(JSON.parse(p.document) as { opn: string }).opn, p.document]),
  );
  return record.parts.every((part) => parts.get(part.opn) === JSON.stringify(part));
}
